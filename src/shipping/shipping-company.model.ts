import { DataTypes, Model, type Sequelize } from 'sequelize';

export class ShippingCompany extends Model {
  declare id: number;
  declare account_id: number;
  declare code: string;
  declare name: string;
  declare adapter: 'http';
  declare endpoint_url: string;
  declare api_key: string | null;
  declare hmac_secret: string;
  declare timeout_ms: number;
  declare active: boolean;
  /** The tariff (docs/cash.md), in cents of the account's currency, and the days within which it remits. */
  declare delivery_fee: number;
  declare return_fee: number;
  declare cod_commission_percent: number | string;
  declare remit_within_days: number;
  declare created_at: Date;
  declare updated_at: Date;
}

export function initShippingCompany(sequelize: Sequelize) {
  ShippingCompany.init(
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      account_id: { type: DataTypes.INTEGER, allowNull: false },
      code: { type: DataTypes.STRING(50), allowNull: false },
      name: { type: DataTypes.STRING(100), allowNull: false },
      adapter: { type: DataTypes.STRING(20), allowNull: false, defaultValue: 'http' },
      endpoint_url: { type: DataTypes.STRING(500), allowNull: false },
      api_key: DataTypes.STRING(255),
      hmac_secret: { type: DataTypes.STRING(255), allowNull: false },
      timeout_ms: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 5000 },
      active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      delivery_fee: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
      return_fee: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
      cod_commission_percent: { type: DataTypes.DECIMAL(5, 2), allowNull: false, defaultValue: 0 },
      remit_within_days: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 14 },
    },
    { sequelize, tableName: 'shipping_companies', modelName: 'ShippingCompany' },
  );
}
