import { DataTypes, Model, type Sequelize } from 'sequelize';

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
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      account_id: { type: DataTypes.INTEGER, allowNull: false },
      lead_id: { type: DataTypes.BIGINT, allowNull: false },
      product_id: DataTypes.INTEGER,
      sku: { type: DataTypes.STRING(100), allowNull: false },
      name: { type: DataTypes.STRING(200), allowNull: false },
      quantity: { type: DataTypes.INTEGER, allowNull: false },
      price: {
        type: DataTypes.DECIMAL(12, 2),
        allowNull: false,
        get() {
          return Number(this.getDataValue('price'));
        },
      },
      position: { type: DataTypes.SMALLINT, allowNull: false, defaultValue: 0 },
    },
    { sequelize, tableName: 'lead_products', modelName: 'LeadProduct', timestamps: false },
  );
}
