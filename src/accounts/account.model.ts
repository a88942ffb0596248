import { DataTypes, Model, type Sequelize } from 'sequelize';

export class Account extends Model {
  declare id: number;
  declare name: string;
  declare created_at: Date;
  declare updated_at: Date;
}

export function initAccount(sequelize: Sequelize) {
  Account.init(
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      name: { type: DataTypes.STRING(100), allowNull: false },
    },
    { sequelize, tableName: 'accounts', modelName: 'Account' },
  );
}
