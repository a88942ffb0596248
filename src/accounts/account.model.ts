import { DataTypes, Model, type Sequelize } from 'sequelize';
import { DEFAULT_RISK } from './risk-thresholds.js';
import { zoneForCountry } from '../time-zones.js';

export class Account extends Model {
  declare id: number;
  declare name: string;
  /** Country of the account's national phone numbers (ISO 3166 alpha-2; src/phone.ts). */
  declare phone_country: string;
  /** IANA zone its times are shown, typed and exported in (src/time-zones.ts); new accounts: from phone_country. */
  declare time_zone: string;
  /** The risk rule's thresholds (src/customers/customer.risk.ts). */
  declare risk_min_returns: number;
  declare risk_min_orders: number;
  declare risk_min_delivery_rate: number;
  declare stock_policy: 'track' | 'enforce';
  /** The currency of its money (ISO 4217; docs/cash.md) and what a buyer pays the courier on top, in cents. */
  declare currency: string;
  declare buyer_delivery_fee: number;
  declare created_at: Date;
  declare updated_at: Date;
}

export function initAccount(sequelize: Sequelize) {
  Account.init(
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      name: { type: DataTypes.STRING(100), allowNull: false },
      phone_country: { type: DataTypes.CHAR(2), allowNull: false },
      time_zone: { type: DataTypes.TEXT, allowNull: false },
      // defaults as the columns' (migration 20261208100000), so a model built in memory reads like the row
      risk_min_returns: { type: DataTypes.INTEGER, allowNull: false, defaultValue: DEFAULT_RISK.risk_min_returns },
      risk_min_orders: { type: DataTypes.INTEGER, allowNull: false, defaultValue: DEFAULT_RISK.risk_min_orders },
      risk_min_delivery_rate: {
        type: DataTypes.INTEGER,
        allowNull: false,
        defaultValue: DEFAULT_RISK.risk_min_delivery_rate,
      },
      stock_policy: { type: DataTypes.STRING(10), allowNull: false, defaultValue: 'track' },
      currency: { type: DataTypes.CHAR(3), allowNull: false, defaultValue: 'MAD' },
      buyer_delivery_fee: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
    },
    {
      sequelize,
      tableName: 'accounts',
      modelName: 'Account',
      hooks: {
        // the one default of every way an account is created (service, seed): its phone country's zone
        beforeValidate: (a: Account) => {
          a.time_zone ??= zoneForCountry(a.phone_country);
        },
      },
    },
  );
}
