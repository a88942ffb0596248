import { DataTypes, Model, type Sequelize } from 'sequelize';
import { contactColumns, deliveryColumns } from '../db/columns.js';
import type { DataPair } from '../leads/lead.model.js';

export const ORDER_STATUSES = ['new', 'pushed', 'shipped', 'delivered', 'returned', 'canceled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export class Order extends Model {
  declare id: number;
  declare account_id: number;
  declare reference: string;
  declare lead_id: number | null;
  declare lead_reference: string | null;
  declare phone: string;
  /** E.164; null for an uncallable phone (kept as typed). */
  declare phone_normalized: string | null;
  declare full_name: string;
  declare city: string | null;
  declare area: string | null;
  declare address: string | null;
  declare data: DataPair[];
  declare total: number;
  declare status: OrderStatus;
  declare shipping_company_id: number | null;
  declare tracking_number: string | null;
  declare pushed_at: Date | null;
  declare push_state: string | null;
  declare push_attempts: number;
  declare last_push_error: string | null;
  declare created_by_user_id: number | null;
  declare created_at: Date;
  declare updated_at: Date;
}

export function initOrder(sequelize: Sequelize) {
  Order.init(
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      account_id: { type: DataTypes.INTEGER, allowNull: false },
      reference: { type: DataTypes.STRING(12), allowNull: false },
      lead_id: DataTypes.BIGINT,
      lead_reference: DataTypes.STRING(12),
      ...contactColumns,
      ...deliveryColumns,
      status: { type: DataTypes.STRING(20), allowNull: false, defaultValue: 'new' },
      shipping_company_id: DataTypes.INTEGER,
      tracking_number: DataTypes.STRING(100),
      pushed_at: DataTypes.DATE,
      push_state: DataTypes.STRING(20),
      push_attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      last_push_error: DataTypes.TEXT,
      created_by_user_id: DataTypes.INTEGER,
    },
    { sequelize, tableName: 'orders', modelName: 'Order' },
  );
}
