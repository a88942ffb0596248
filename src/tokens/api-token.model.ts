import { DataTypes, Model, type Sequelize } from 'sequelize';

export class ApiToken extends Model {
  declare id: number;
  declare account_id: number;
  declare user_id: number;
  declare name: string;
  declare token_hash: string;
  declare scopes: string[];
  declare last_used_at: Date | null;
  declare expires_at: Date | null;
  declare created_at: Date;
  declare updated_at: Date;
}

export function initApiToken(sequelize: Sequelize) {
  ApiToken.init(
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      account_id: { type: DataTypes.INTEGER, allowNull: false },
      user_id: { type: DataTypes.INTEGER, allowNull: false },
      name: { type: DataTypes.STRING(100), allowNull: false },
      token_hash: { type: DataTypes.CHAR(64), allowNull: false },
      scopes: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false },
      last_used_at: DataTypes.DATE,
      expires_at: DataTypes.DATE,
    },
    {
      sequelize,
      tableName: 'api_tokens',
      modelName: 'ApiToken',
      defaultScope: { attributes: { exclude: ['token_hash'] } },
      scopes: { withHash: {} },
    },
  );
}
