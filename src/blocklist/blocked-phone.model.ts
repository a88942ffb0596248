import { DataTypes, Model, type Sequelize } from 'sequelize';

/** A phone an account blocked (migrations/20261208000000-blocked-phones.ts); docs/decisions.md "Blocklist". */
export class BlockedPhone extends Model {
  declare id: number;
  declare account_id: number;
  /** E.164, read in the account's country when blocked: what a new lead's phone is matched on. */
  declare phone_normalized: string;
  /** As typed, shown to people. */
  declare phone: string;
  declare reason: string;
  declare created_by: string;
  declare created_by_user_id: number | null;
  declare created_at: Date;
}

export function initBlockedPhone(sequelize: Sequelize) {
  BlockedPhone.init(
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      account_id: { type: DataTypes.INTEGER, allowNull: false },
      phone_normalized: { type: DataTypes.STRING(100), allowNull: false },
      phone: { type: DataTypes.STRING(100), allowNull: false },
      reason: { type: DataTypes.STRING(500), allowNull: false },
      created_by: { type: DataTypes.STRING(255), allowNull: false },
      created_by_user_id: DataTypes.INTEGER,
      created_at: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
    },
    { sequelize, tableName: 'blocked_phones', modelName: 'BlockedPhone', timestamps: false },
  );
}
