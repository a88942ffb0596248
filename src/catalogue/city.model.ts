import { DataTypes, Model, type Sequelize } from 'sequelize';

/** Shared reference list (not tenant data); only admins edit it. */
export class City extends Model {
  declare id: number;
  declare name: string;
}

export function initCity(sequelize: Sequelize) {
  City.init(
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      name: { type: DataTypes.STRING(100), allowNull: false },
    },
    { sequelize, tableName: 'cities', modelName: 'City' },
  );
}
