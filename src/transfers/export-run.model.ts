import { DataTypes, Model, type Sequelize } from 'sequelize';

export class ExportRun extends Model {
  declare id: number;
  declare account_id: number;
  declare user_id: number | null;
  declare kind: 'leads' | 'orders';
  declare status: 'queued' | 'running' | 'completed' | 'failed' | 'expired';
  declare file_extension: 'xlsx' | 'csv';
  declare filters: Record<string, unknown>;
  declare file_path: string | null;
  declare rows_written: number;
  declare error: string | null;
  declare expires_at: Date | null;
  declare started_at: Date | null;
  declare finished_at: Date | null;
  declare created_at: Date;
  declare updated_at: Date;
}

export function initExportRun(sequelize: Sequelize) {
  ExportRun.init(
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      account_id: { type: DataTypes.INTEGER, allowNull: false },
      user_id: DataTypes.INTEGER,
      kind: { type: DataTypes.STRING(10), allowNull: false, defaultValue: 'leads' },
      status: { type: DataTypes.STRING(12), allowNull: false, defaultValue: 'queued' },
      file_extension: { type: DataTypes.STRING(5), allowNull: false },
      filters: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      file_path: DataTypes.STRING(500),
      rows_written: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      error: DataTypes.TEXT,
      expires_at: DataTypes.DATE,
      started_at: DataTypes.DATE,
      finished_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'export_runs', modelName: 'ExportRun' },
  );
}
