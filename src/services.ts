import { createAccountService } from './accounts/account.service.js';
import { createCredentialService } from './auth/credentials.js';
import { createInvitationService } from './auth/invitations.js';
import { createPasswordResetService } from './auth/password-reset.service.js';
import { createBlocklistService } from './blocklist/blocklist.service.js';
import { createCatalogueService } from './catalogue/catalogue.service.js';
import { createCustomerLookupService } from './customers/customer-lookup.service.js';
import { createRowCountService } from './row-counts.js';
import { createTableStatisticsService } from './db/table-statistics.js';
import type { Core } from './context.js';
import { createHistoryService } from './histories/history.service.js';
import { createIdempotencyService } from './idempotency/idempotency.service.js';
import { createLeadService } from './leads/lead.service.js';
import { createOrderService } from './orders/order.service.js';
import { createQueueService } from './queue/queue.service.js';
import { createSourceService } from './sources/source.service.js';
import { createShippingService } from './shipping/shipping.service.js';
import { createStoreIntakeService } from './sources/store-intake.service.js';
import { createFormIntakeService } from './sources/form-intake.service.js';
import { createKpiService } from './stats/kpi.service.js';
import { createStatsService } from './stats/stats.service.js';
import { createTokenService } from './tokens/token.service.js';
import { createExportService } from './transfers/export.service.js';
import { createImportService } from './transfers/import.service.js';
import { createStockService } from './stock/stock.service.js';
import { createCashService } from './cash/cash.service.js';
import { createWebhookService } from './webhooks/webhook.service.js';
import './reactions.js'; // who reacts to which domain event, wired once per process

/** Every domain service, built once per process over the same core. Entry points only call these. */
export function createServices(core: Core) {
  const stock = createStockService(core);
  const leadRecords = createLeadService(core);
  // a show's product lines carry what is left in stock (stock sits above leads and orders: composed here)
  const leads: typeof leadRecords = {
    ...leadRecords,
    show: async (actor, key) => stock.withAvailable(await leadRecords.show(actor, key), 'lead'),
  };
  const shipping = createShippingService(core);
  const orderRecords = createOrderService(core, { leads, shipping });
  const orders: typeof orderRecords = {
    ...orderRecords,
    show: async (actor, key) => stock.withAvailable(await orderRecords.show(actor, key), 'order'),
  };
  return {
    accounts: createAccountService(core),
    catalogue: createCatalogueService(core),
    tokens: createTokenService(core),
    leads,
    shipping,
    orders,
    histories: createHistoryService(core),
    queue: createQueueService(core, { leads }),
    imports: createImportService(core, { leads }),
    exports: createExportService(core),
    credentials: createCredentialService(core),
    passwordResets: createPasswordResetService(core),
    invitations: createInvitationService(core),
    stats: createStatsService(core),
    kpi: createKpiService(core),
    rowCounts: createRowCountService(core),
    tableStatistics: createTableStatisticsService(core),
    webhooks: createWebhookService(core),
    blocklist: createBlocklistService(core),
    idempotency: createIdempotencyService(core),
    customerLookup: createCustomerLookupService(core),
    sources: createSourceService(core),
    stock,
    cash: createCashService(core),
    storeIntake: createStoreIntakeService(core, { leads }),
    formIntake: createFormIntakeService(core, { leads }),
  };
}
export type Services = ReturnType<typeof createServices>;
