import { DataTypes, Model, type Sequelize } from 'sequelize';

export class PasswordReset extends Model {
  declare id: number;
  declare user_id: number;
  declare token_hash: string;
  declare expires_at: Date;
  declare used_at: Date | null;
  declare created_at: Date;
}

export function initPasswordReset(sequelize: Sequelize) {
  PasswordReset.init(
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      user_id: { type: DataTypes.INTEGER, allowNull: false },
      token_hash: { type: DataTypes.CHAR(64), allowNull: false },
      expires_at: { type: DataTypes.DATE, allowNull: false },
      used_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'password_resets', modelName: 'PasswordReset', updatedAt: false },
  );
}
