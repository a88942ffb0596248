import type { ResourceWithOptions } from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { accountChoiceProp, chosen } from './account-choice.js';
import { tenantReadActions } from './panel-kit.js';
import { serviceActions } from './service-actions.js';
import { nav, noWrapProps, text, type PanelComponents } from './panel-ui.js';

/**
 * The blocklist (docs/admin-panel.md "Blocklist"): a phone and why; deleting an entry unblocks the phone. Writes are
 * services.blocklist calls; an entry is never edited (unblock it and block it again with another reason).
 */
export function blockedPhoneResource(ctx: AppContext, components: PanelComponents): ResourceWithOptions {
  const { services } = ctx;
  return {
    resource: ctx.models.BlockedPhone,
    options: {
      navigation: nav.leads,
      titleProperty: 'phone',
      listProperties: ['phone', 'reason', 'created_by', 'created_at', 'account_id'],
      filterProperties: ['phone', 'created_at', 'account_id'],
      showProperties: ['phone', 'phone_normalized', 'reason', 'created_by', 'created_at', 'account_id'],
      editProperties: ['account_id', 'phone', 'reason'],
      sort: { sortBy: 'created_at', direction: 'desc' },
      properties: {
        ...accountChoiceProp,
        ...noWrapProps(components.noWrap, ['phone', 'phone_normalized']),
        reason: { type: 'textarea', description: 'descriptions.blockReason' },
        created_by_user_id: { isVisible: false },
      },
      actions: {
        ...tenantReadActions('blocklist'),
        ...serviceActions('blocklist', {
          create: (actor, p) =>
            services.blocklist.block(actor, { ...chosen(actor, p), phone: text(p.phone), reason: text(p.reason) }),
          remove: async (actor, ids) => {
            for (const id of ids) await services.blocklist.unblock(actor, id);
          },
        }),
        // one entry at a time: a bulk unblock through a per-id service call could stop half-way
        bulkDelete: { isAccessible: false },
      },
    },
  };
}
