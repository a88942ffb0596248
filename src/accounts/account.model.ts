import { DataTypes, Model, type Sequelize } from 'sequelize';

export class Account extends Model {
  declare id: number;
  declare name: string;
  /** Country of the account's national phone numbers (ISO 3166 alpha-2; src/leads/phone.ts). */
  declare phone_country: string;
  declare created_at: Date;
  declare updated_at: Date;
}

export function initAccount(sequelize: Sequelize) {
  Account.init(
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      name: { type: DataTypes.STRING(100), allowNull: false },
      phone_country: { type: DataTypes.CHAR(2), allowNull: false },
    },
    { sequelize, tableName: 'accounts', modelName: 'Account' },
  );
}
