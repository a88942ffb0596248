import { DataTypes, Model, type Sequelize } from 'sequelize';
import { zoneForCountry } from '../time-zones.js';

export class Account extends Model {
  declare id: number;
  declare name: string;
  /** Country of the account's national phone numbers (ISO 3166 alpha-2; src/leads/phone.ts). */
  declare phone_country: string;
  /** IANA zone its times are shown, typed and exported in (src/time-zones.ts); new accounts: from phone_country. */
  declare time_zone: string;
  declare created_at: Date;
  declare updated_at: Date;
}

export function initAccount(sequelize: Sequelize) {
  Account.init(
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      name: { type: DataTypes.STRING(100), allowNull: false },
      phone_country: { type: DataTypes.CHAR(2), allowNull: false },
      time_zone: { type: DataTypes.TEXT, allowNull: false },
    },
    {
      sequelize,
      tableName: 'accounts',
      modelName: 'Account',
      hooks: {
        // the one default of every way an account is created (service, seed): its phone country's zone
        beforeValidate: (a: Account) => {
          a.time_zone ??= zoneForCountry(a.phone_country);
        },
      },
    },
  );
}
