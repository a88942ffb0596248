import { createAccountService } from './accounts/account.service.js';
import { createPasswordResetService } from './auth/password-reset.service.js';
import { createCatalogueService } from './catalogue/catalogue.service.js';
import type { Core } from './context.js';
import { createHistoryService } from './histories/history.service.js';
import { createLeadService } from './leads/lead.service.js';
import { createTokenService } from './tokens/token.service.js';

/** Every domain service, built once per process over the same core. Entry points only call these. */
export function createServices(core: Core) {
  return {
    accounts: createAccountService(core),
    catalogue: createCatalogueService(core),
    tokens: createTokenService(core),
    leads: createLeadService(core),
    histories: createHistoryService(core),
    passwordResets: createPasswordResetService(core),
  };
}
export type Services = ReturnType<typeof createServices>;
