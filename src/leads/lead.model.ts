import { DataTypes, Model, type Sequelize } from 'sequelize';
import { contactColumns, deliveryColumns } from '../db/columns.js';

export const LEAD_STATUSES = ['new', 'confirmed', 'wrong', 'call_later', 'no_answer', 'duplicate', 'canceled'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

export interface DataPair {
  key?: string;
  value?: string;
}

export class Lead extends Model {
  declare id: number;
  declare account_id: number;
  declare reference: string;
  declare phone: string;
  /** E.164; null for an uncallable phone (kept as typed). */
  declare phone_normalized: string | null;
  declare full_name: string;
  declare city: string | null;
  declare city_id: number | null;
  declare area: string | null;
  declare address: string | null;
  declare data: DataPair[];
  declare status: LeadStatus;
  declare action_date: Date | null;
  declare total: number;
  declare created_by_user_id: number | null;
  declare created_by_token_id: number | null;
  declare import_run_id: number | null;
  declare import_row: number | null;
  /** The lead source it came from (a form or a shop; issue 34), null for REST, import and panel leads. */
  declare source_id: number | null;
  /** utm_source, utm_medium, utm_campaign, utm_term, utm_content as the source received them. */
  declare utm: Record<string, string> | null;
  /** The shop's order id: one lead per shop order. */
  declare external_id: string | null;
  declare created_at: Date;
  declare updated_at: Date;
}

export function initLead(sequelize: Sequelize) {
  Lead.init(
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      account_id: { type: DataTypes.INTEGER, allowNull: false },
      reference: { type: DataTypes.STRING(12), allowNull: false },
      ...contactColumns,
      city_id: DataTypes.INTEGER,
      ...deliveryColumns,
      status: { type: DataTypes.STRING(20), allowNull: false, defaultValue: 'new' },
      action_date: DataTypes.DATE,
      created_by_user_id: DataTypes.INTEGER,
      created_by_token_id: DataTypes.INTEGER,
      import_run_id: DataTypes.INTEGER,
      import_row: DataTypes.INTEGER,
      source_id: DataTypes.INTEGER,
      utm: DataTypes.JSONB,
      external_id: DataTypes.STRING(100),
    },
    { sequelize, tableName: 'leads', modelName: 'Lead' },
  );
}
