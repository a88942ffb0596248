import { accountZoneChanged, loginChanged } from './accounts/account.events.js';
import { onLoginChanged as endCredentialsOf } from './auth/credentials.js';
import { leadsConfirmed } from './leads/lead.events.js';
import { createOrdersFromLeads } from './orders/from-leads.js';
import { ordersCreated, ordersDeleting, ordersMoved } from './orders/order.events.js';
import { onLoginChanged as endClaimsOf } from './queue/queue.repository.js';
import { requestZoneRebuild } from './stats/kpi-zones.repository.js';
import { settleOrders } from './cash/cash.reactions.js';
import { moveOrders, releaseOrders, reserveOrders } from './stock/stock.reactions.js';
import { onLoginChanged as forgetTokensOf } from './tokens/token-revocation.js';

/**
 * Who reacts to what (docs/architecture.md, "Floors"): each domain event of a lower floor and the reactions of the
 * floors above it, in the order they run, in the emitter's transaction. Loaded once per process with the services
 * (src/services.ts); a domain never imports a floor above it, this file is where they meet.
 */
loginChanged.subscribe(endCredentialsOf);
loginChanged.subscribe(endClaimsOf);
loginChanged.subscribe(forgetTokensOf);

accountZoneChanged.subscribe((core, { transaction, accountId }) =>
  requestZoneRebuild(core.db.sequelize, accountId, transaction),
);

leadsConfirmed.subscribe((core, { transaction, actor, leadIds }) =>
  createOrdersFromLeads(core, transaction, actor, leadIds),
);

ordersCreated.subscribe(reserveOrders);
ordersMoved.subscribe(moveOrders);
ordersMoved.subscribe(settleOrders);
ordersDeleting.subscribe(releaseOrders);
