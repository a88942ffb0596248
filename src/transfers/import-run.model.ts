import { DataTypes, Model, type Sequelize } from 'sequelize';

export class ImportRun extends Model {
  declare id: number;
  declare account_id: number;
  declare user_id: number | null;
  declare kind: 'leads' | 'orders' | 'stock';
  declare status: 'queued' | 'running' | 'completed' | 'failed';
  declare file_name: string;
  declare file_path: string;
  declare file_type: 'xlsx' | 'csv';
  declare rows_total: number | null;
  declare rows_total_estimated: boolean;
  declare rows_read: number;
  declare rows_written: number;
  declare rows_failed: number;
  declare cursor_row: number;
  declare error: string | null;
  declare started_at: Date | null;
  declare finished_at: Date | null;
  declare created_at: Date;
  declare updated_at: Date;
}

export class ImportRunError extends Model {
  declare id: number;
  declare account_id: number;
  declare import_run_id: number;
  declare row_number: number;
  declare column_name: string;
  declare message: string;
}

export function initImportRun(sequelize: Sequelize) {
  ImportRun.init(
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      account_id: { type: DataTypes.INTEGER, allowNull: false },
      user_id: DataTypes.INTEGER,
      kind: { type: DataTypes.STRING(10), allowNull: false, defaultValue: 'leads' },
      status: { type: DataTypes.STRING(12), allowNull: false, defaultValue: 'queued' },
      file_name: { type: DataTypes.STRING(255), allowNull: false },
      file_path: { type: DataTypes.STRING(500), allowNull: false },
      file_type: { type: DataTypes.STRING(5), allowNull: false },
      rows_total: DataTypes.INTEGER,
      rows_total_estimated: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      rows_read: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      rows_written: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      rows_failed: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      cursor_row: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      error: DataTypes.TEXT,
      started_at: DataTypes.DATE,
      finished_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'import_runs', modelName: 'ImportRun' },
  );
  ImportRunError.init(
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      account_id: { type: DataTypes.INTEGER, allowNull: false },
      import_run_id: { type: DataTypes.INTEGER, allowNull: false },
      row_number: { type: DataTypes.INTEGER, allowNull: false },
      column_name: { type: DataTypes.STRING(100), allowNull: false },
      message: { type: DataTypes.STRING(500), allowNull: false },
    },
    { sequelize, tableName: 'import_run_errors', modelName: 'ImportRunError', timestamps: false },
  );
}
