import { SCOPES, type Scope } from '../actor.js';

/**
 * The ready-made sets of scopes the panel's API key form offers (docs/admin-panel.md "API keys"); choosing one ticks
 * its scopes, which are saved as they are (the same codes the REST API checks), so a preset is never stored.
 * - readOnly: every VIEW scope, for reporting and dashboards that only read.
 * - integrator: what a shop, a landing page or a CRM connector needs: send leads (CREATE LEADS), follow what became
 *   of them and of their orders (VIEW LEADS, VIEW ORDERS), and be told of changes (MANAGE WEBHOOKS). It changes no
 *   status and deletes nothing: confirming, pushing and cancelling stay with the call centre.
 * - everything: every scope.
 */
export const SCOPE_PRESETS = {
  readOnly: SCOPES.filter((s) => s.startsWith('VIEW ')),
  integrator: ['CREATE LEADS', 'VIEW LEADS', 'VIEW ORDERS', 'MANAGE WEBHOOKS'] as Scope[],
  everything: [...SCOPES],
} satisfies Record<string, Scope[]>;
export type ScopePreset = keyof typeof SCOPE_PRESETS;
