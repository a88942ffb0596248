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
    },
    { sequelize, tableName: 'shipping_companies', modelName: 'ShippingCompany' },
  );
}
