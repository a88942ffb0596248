import { DataTypes, Model, type Sequelize } from 'sequelize';

/**
 * A customer: one account's figures of one E.164 phone (migration 20261208100000). Read only: the triggers on leads and
 * orders write every row, in the transaction of the change; nothing in the application inserts or updates one.
 * Records for people (risk, block, delivery rate) come from customer.repository.ts.
 */
export class Customer extends Model {
  declare id: number;
  declare account_id: number;
  declare phone_normalized: string;
  declare leads: number;
  declare confirmed: number;
  declare orders: number;
  declare delivered: number;
  declare returned: number;
  declare canceled: number;
  declare first_seen_at: Date | null;
  declare last_seen_at: Date | null;
  declare last_lead_at: Date | null;
  declare city: string | null;
  declare last_order_id: number | null;
  declare last_order_reference: string | null;
  declare last_order_status: string | null;
  declare last_order_at: Date | null;
}

const count = () => ({ type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 });

export function initCustomer(sequelize: Sequelize) {
  Customer.init(
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      account_id: { type: DataTypes.INTEGER, allowNull: false },
      phone_normalized: { type: DataTypes.STRING(100), allowNull: false },
      leads: count(),
      confirmed: count(),
      orders: count(),
      delivered: count(),
      returned: count(),
      canceled: count(),
      first_seen_at: DataTypes.DATE,
      last_seen_at: DataTypes.DATE,
      last_lead_at: DataTypes.DATE,
      city: DataTypes.STRING(100),
      last_order_id: DataTypes.BIGINT,
      last_order_reference: DataTypes.STRING(12),
      last_order_status: DataTypes.STRING(20),
      last_order_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'customers', modelName: 'Customer', timestamps: false },
  );
}
