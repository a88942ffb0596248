import { DataTypes, Model, type Sequelize } from 'sequelize';

/** An account's webhook endpoint (migrations/20261201000000-webhooks.ts). `secret` never leaves the service. */
export class WebhookEndpoint extends Model {
  declare id: number;
  declare account_id: number;
  declare url: string;
  declare events: string[];
  declare secret: string;
  /** The secret a rotation replaced: it signs beside `secret` until `rotation_grace_until`. */
  declare previous_secret: string | null;
  declare rotation_grace_until: Date | null;
  declare active: boolean;
  declare failing_since: Date | null;
  declare disabled_at: Date | null;
  declare disabled_reason: string | null;
  declare created_at: Date;
  declare updated_at: Date;
}

/** One event sent (or to be sent) to one endpoint; the delivery log. Written by triggers and the delivery job. */
export class WebhookDelivery extends Model {
  declare id: number;
  declare event_id: string;
  declare endpoint_id: number;
  declare account_id: number;
  declare event: string;
  declare sequence_key: string;
  declare payload: Record<string, unknown>;
  declare state: 'pending' | 'delivered' | 'failed';
  declare attempts: number;
  declare response_code: number | null;
  declare duration_ms: number | null;
  declare last_error: string | null;
  declare next_try_at: Date | null;
  declare locked_until: Date | null;
  declare delivered_at: Date | null;
  declare resent_from: number | null;
  /** The webhook_events row it was fanned out from (null: a hand re-send, or recorded before the event log). */
  declare webhook_event_id: string | null;
  declare created_at: Date;
}

export function initWebhooks(sequelize: Sequelize) {
  WebhookEndpoint.init(
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      account_id: { type: DataTypes.INTEGER, allowNull: false },
      url: { type: DataTypes.STRING(500), allowNull: false },
      events: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false },
      secret: { type: DataTypes.STRING(100), allowNull: false },
      previous_secret: DataTypes.STRING(100),
      rotation_grace_until: DataTypes.DATE,
      active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      failing_since: DataTypes.DATE,
      disabled_at: DataTypes.DATE,
      disabled_reason: DataTypes.STRING(500),
    },
    { sequelize, tableName: 'webhook_endpoints', modelName: 'WebhookEndpoint' },
  );
  WebhookDelivery.init(
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      event_id: { type: DataTypes.UUID, allowNull: false },
      endpoint_id: { type: DataTypes.INTEGER, allowNull: false },
      account_id: { type: DataTypes.INTEGER, allowNull: false },
      event: { type: DataTypes.STRING(40), allowNull: false },
      sequence_key: { type: DataTypes.STRING(40), allowNull: false },
      payload: { type: DataTypes.JSONB, allowNull: false },
      state: { type: DataTypes.STRING(10), allowNull: false, defaultValue: 'pending' },
      attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      response_code: DataTypes.INTEGER,
      duration_ms: DataTypes.INTEGER,
      last_error: DataTypes.STRING(500),
      next_try_at: DataTypes.DATE,
      locked_until: DataTypes.DATE,
      delivered_at: DataTypes.DATE,
      resent_from: DataTypes.BIGINT,
      webhook_event_id: DataTypes.BIGINT,
      created_at: { type: DataTypes.DATE, allowNull: false },
    },
    { sequelize, tableName: 'webhook_deliveries', modelName: 'WebhookDelivery', timestamps: false },
  );
  WebhookDelivery.belongsTo(WebhookEndpoint, { foreignKey: 'endpoint_id' });
  WebhookEndpoint.hasMany(WebhookDelivery, { foreignKey: 'endpoint_id' });
}
