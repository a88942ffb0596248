import { DataTypes, Model, type Sequelize } from 'sequelize';

/** The kinds of lead source (migrations/20261209000000-lead-sources.ts). */
export const SOURCE_KINDS = ['form', 'shopify', 'woocommerce'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** What became of one submission a source received. */
export const INTAKE_OUTCOMES = ['created', 'duplicate', 'refused', 'rate_limited'] as const;
export type IntakeOutcome = (typeof INTAKE_OUTCOMES)[number];

/** A product line a submission without products gets, or that a shop line maps to. */
export interface SourceLine {
  sku: string;
  quantity: number;
  price?: number;
}

/** Where an account's leads are born outside LeadFlow: a landing-page form or a shop. `signing_secret` never leaves. */
export class LeadSource extends Model {
  declare id: number;
  declare account_id: number;
  declare kind: SourceKind;
  declare name: string;
  declare public_key: string;
  declare signing_secret: string | null;
  declare allowed_origins: string[];
  declare thank_you_url: string | null;
  declare default_products: SourceLine[];
  /** A shop's sku (or product id) → the account's sku. */
  declare product_mapping: Record<string, string>;
  declare active: boolean;
  declare created_by: string | null;
  declare created_at: Date;
  declare updated_at: Date;
}

/** One submission a source received and its outcome (kept 30 days). */
export class LeadIntake extends Model {
  declare id: number;
  declare account_id: number;
  declare source_id: number;
  declare received_at: Date;
  declare outcome: IntakeOutcome;
  declare reason: string | null;
  declare lead_id: number | null;
  declare lead_reference: string | null;
  declare external_id: string | null;
  declare client_ip: string | null;
  declare attempts: number;
  declare origin: string | null;
  declare payload: unknown;
}

export function initLeadSources(sequelize: Sequelize) {
  LeadSource.init(
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      account_id: { type: DataTypes.INTEGER, allowNull: false },
      kind: { type: DataTypes.STRING(20), allowNull: false },
      name: { type: DataTypes.STRING(100), allowNull: false },
      public_key: { type: DataTypes.STRING(40), allowNull: false },
      signing_secret: DataTypes.STRING(255),
      allowed_origins: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false, defaultValue: [] },
      thank_you_url: DataTypes.STRING(2000),
      default_products: { type: DataTypes.JSONB, allowNull: false, defaultValue: [] },
      product_mapping: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      created_by: DataTypes.STRING(255),
    },
    { sequelize, tableName: 'lead_sources', modelName: 'LeadSource' },
  );
  LeadIntake.init(
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      account_id: { type: DataTypes.INTEGER, allowNull: false },
      source_id: { type: DataTypes.INTEGER, allowNull: false },
      received_at: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
      outcome: { type: DataTypes.STRING(20), allowNull: false },
      reason: DataTypes.STRING(500),
      lead_id: DataTypes.BIGINT,
      lead_reference: DataTypes.STRING(12),
      external_id: DataTypes.STRING(100),
      client_ip: DataTypes.STRING(64),
      attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 },
      origin: DataTypes.STRING(255),
      payload: DataTypes.JSONB,
    },
    { sequelize, tableName: 'lead_intake', modelName: 'LeadIntake', timestamps: false },
  );
  LeadIntake.belongsTo(LeadSource, { foreignKey: 'source_id' });
  LeadSource.hasMany(LeadIntake, { foreignKey: 'source_id' });
}
