import { DataTypes } from 'sequelize';

/** A DECIMAL column read as a number (pg returns DECIMAL as a string). */
const amount = (name: string, precision: number) => ({
  type: DataTypes.DECIMAL(precision, 2),
  allowNull: false,
  get(this: { getDataValue(key: string): unknown }) {
    return Number(this.getDataValue(name));
  },
});

/** Who to call and where to deliver: the columns a lead and the order made from it share. */
export const contactColumns = {
  phone: { type: DataTypes.STRING(100), allowNull: false },
  // E.164, or null for a phone that is not a possible number (docs/decisions.md, "Phones")
  phone_normalized: { type: DataTypes.STRING(100), allowNull: true },
  full_name: { type: DataTypes.STRING(100), allowNull: false },
  city: DataTypes.STRING(100),
};

/** Address details and custom data, after the city. */
export const deliveryColumns = {
  area: DataTypes.STRING(100),
  address: DataTypes.STRING(100),
  data: { type: DataTypes.JSONB, allowNull: false, defaultValue: [] },
  total: { ...amount('total', 16), defaultValue: 0 },
};

/** A product line of a lead or an order: the catalogue's product as it was when the line was written. */
export const productLineColumns = {
  id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
  account_id: { type: DataTypes.INTEGER, allowNull: false },
  product_id: DataTypes.INTEGER,
  sku: { type: DataTypes.STRING(100), allowNull: false },
  name: { type: DataTypes.STRING(200), allowNull: false },
  quantity: { type: DataTypes.INTEGER, allowNull: false },
  price: amount('price', 12),
  position: { type: DataTypes.SMALLINT, allowNull: false, defaultValue: 0 },
};
