import { DataTypes, Model, type Sequelize } from 'sequelize';
import { productLineColumns } from '../db/columns.js';

export class OrderProduct extends Model {
  declare id: number;
  declare account_id: number;
  declare order_id: number;
  declare product_id: number | null;
  declare sku: string;
  declare name: string;
  declare quantity: number;
  declare price: number;
  declare position: number;
}

export function initOrderProduct(sequelize: Sequelize) {
  OrderProduct.init(
    {
      ...productLineColumns,
      order_id: { type: DataTypes.BIGINT, allowNull: false },
    },
    { sequelize, tableName: 'order_products', modelName: 'OrderProduct', timestamps: false },
  );
}
