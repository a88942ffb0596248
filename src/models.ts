import type { Sequelize } from 'sequelize';
import { Account, initAccount } from './accounts/account.model.js';
import { User, initUser } from './accounts/user.model.js';
import { LoginInvitation, initLoginInvitation } from './auth/login-invitation.model.js';
import { BlockedPhone, initBlockedPhone } from './blocklist/blocked-phone.model.js';
import { PasswordReset, initPasswordReset } from './auth/password-reset.model.js';
import { Session, initSession } from './auth/session.model.js';
import { City, initCity } from './catalogue/city.model.js';
import { Product, initProduct } from './catalogue/product.model.js';
import { Customer, initCustomer } from './customers/customer.model.js';
import { Lead, initLead } from './leads/lead.model.js';
import { LeadHistory, initLeadHistory } from './leads/lead-history.model.js';
import { LeadProduct, initLeadProduct } from './leads/lead-product.model.js';
import { Order, initOrder } from './orders/order.model.js';
import { OrderHistory, initOrderHistory } from './orders/order-history.model.js';
import { OrderProduct, initOrderProduct } from './orders/order-product.model.js';
import { ShippingCompany, initShippingCompany } from './shipping/shipping-company.model.js';
import { LeadIntake, LeadSource, initLeadSources } from './sources/lead-source.model.js';
import { ApiToken, initApiToken } from './tokens/api-token.model.js';
import { ExportRun, initExportRun } from './transfers/export-run.model.js';
import { ImportRun, ImportRunError, initImportRun } from './transfers/import-run.model.js';
import { WebhookDelivery, WebhookEndpoint, initWebhooks } from './webhooks/webhook-endpoint.model.js';

export const models = {
  Account,
  User,
  LoginInvitation,
  PasswordReset,
  Session,
  City,
  Product,
  Lead,
  LeadProduct,
  LeadHistory,
  Order,
  Customer,
  OrderProduct,
  OrderHistory,
  ShippingCompany,
  ApiToken,
  ImportRun,
  ImportRunError,
  ExportRun,
  WebhookEndpoint,
  WebhookDelivery,
  BlockedPhone,
  LeadSource,
  LeadIntake,
};
type Registered = typeof models;
import type { Models } from './context.js';
export type { Models };

// the kernel's Models (src/context.ts) is this registry: every process binds these models (initModels)
declare module './context.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Models extends Registered {}
}

/** Binds every model to this Sequelize instance (one per process) and declares the associations. */
export function initModels(sequelize: Sequelize): Models {
  for (const init of [
    initAccount,
    initUser,
    initLoginInvitation,
    initPasswordReset,
    initSession,
    initCity,
    initProduct,
    initLead,
    initLeadProduct,
    initLeadHistory,
    initOrder,
    initCustomer,
    initLeadSources,
    initOrderProduct,
    initOrderHistory,
    initShippingCompany,
    initApiToken,
    initImportRun,
    initExportRun,
    initWebhooks,
    initBlockedPhone,
  ])
    init(sequelize);

  Account.hasMany(User, { foreignKey: 'account_id' });
  User.belongsTo(Account, { foreignKey: 'account_id' });
  LoginInvitation.belongsTo(Account, { foreignKey: 'account_id' });
  Product.belongsTo(Account, { foreignKey: 'account_id' });
  Lead.belongsTo(Account, { foreignKey: 'account_id' });
  Lead.belongsTo(City, { foreignKey: 'city_id' });
  Lead.hasMany(LeadProduct, { foreignKey: 'lead_id', as: 'products' });
  Lead.hasMany(LeadHistory, { foreignKey: 'lead_id', as: 'history' });
  Lead.hasOne(Order, { foreignKey: 'lead_id', as: 'order' });
  Order.belongsTo(Account, { foreignKey: 'account_id' });
  Order.belongsTo(Lead, { foreignKey: 'lead_id' });
  Order.belongsTo(ShippingCompany, { foreignKey: 'shipping_company_id' });
  Order.hasMany(OrderProduct, { foreignKey: 'order_id', as: 'products' });
  Order.hasMany(OrderHistory, { foreignKey: 'order_id', as: 'history' });
  ApiToken.belongsTo(User, { foreignKey: 'user_id' });
  ApiToken.belongsTo(Account, { foreignKey: 'account_id' });
  BlockedPhone.belongsTo(Account, { foreignKey: 'account_id' });
  Customer.belongsTo(Account, { foreignKey: 'account_id' });
  ImportRun.hasMany(ImportRunError, { foreignKey: 'import_run_id', as: 'errors' });
  return models;
}
