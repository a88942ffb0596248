import { DataTypes, Model, type Sequelize } from 'sequelize';

export class Product extends Model {
  declare id: number;
  declare account_id: number;
  declare sku: string;
  declare name: string;
  declare price: number;
  declare active: boolean;
  declare created_at: Date;
  declare updated_at: Date;
}

export function initProduct(sequelize: Sequelize) {
  Product.init(
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      account_id: { type: DataTypes.INTEGER, allowNull: false },
      sku: { type: DataTypes.STRING(100), allowNull: false },
      name: { type: DataTypes.STRING(200), allowNull: false },
      price: {
        type: DataTypes.DECIMAL(12, 2),
        allowNull: false,
        get() {
          return Number(this.getDataValue('price'));
        },
      },
      active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
    },
    { sequelize, tableName: 'products', modelName: 'Product' },
  );
}
