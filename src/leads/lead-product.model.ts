import { DataTypes, Model, type Sequelize } from 'sequelize';
import { productLineColumns } from '../db/columns.js';

export class LeadProduct extends Model {
  declare id: number;
  declare account_id: number;
  declare lead_id: number;
  declare product_id: number | null;
  declare sku: string;
  declare name: string;
  declare quantity: number;
  declare price: number;
  declare position: number;
}

export function initLeadProduct(sequelize: Sequelize) {
  LeadProduct.init(
    {
      ...productLineColumns,
      lead_id: { type: DataTypes.BIGINT, allowNull: false },
    },
    { sequelize, tableName: 'lead_products', modelName: 'LeadProduct', timestamps: false },
  );
}
