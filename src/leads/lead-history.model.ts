import { DataTypes, Model, type Sequelize } from 'sequelize';

export class LeadHistory extends Model {
  declare id: number;
  declare account_id: number;
  declare lead_id: number;
  declare lead_reference: string;
  declare old_status: string | null;
  declare new_status: string;
  declare changed_by: string;
  declare changed_by_user_id: number | null;
  declare changed_at: Date;
  /** The agent's note on the change (the work queue's outcomes), at most 500 characters. */
  declare note: string | null;
}

export function initLeadHistory(sequelize: Sequelize) {
  LeadHistory.init(
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      account_id: { type: DataTypes.INTEGER, allowNull: false },
      lead_id: { type: DataTypes.BIGINT, allowNull: false },
      lead_reference: { type: DataTypes.STRING(12), allowNull: false },
      old_status: DataTypes.STRING(20),
      new_status: { type: DataTypes.STRING(20), allowNull: false },
      changed_by: { type: DataTypes.STRING(200), allowNull: false },
      changed_by_user_id: DataTypes.INTEGER,
      changed_at: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
      note: DataTypes.STRING(500),
    },
    { sequelize, tableName: 'lead_histories', modelName: 'LeadHistory', timestamps: false },
  );
}
