import { DataTypes, Model, type Sequelize } from 'sequelize';
import type { Role } from '../actor.js';

/** An invitation to a login of an account, accepted by its mailed link (src/auth/invitations.ts). */
export class LoginInvitation extends Model {
  declare id: number;
  declare account_id: number;
  declare email: string;
  declare name: string;
  declare role: Role;
  declare token_hash: string;
  declare invited_by: number | null;
  declare created_at: Date;
  declare expires_at: Date;
  declare accepted_at: Date | null;
  declare void_at: Date | null;
}

export function initLoginInvitation(sequelize: Sequelize) {
  LoginInvitation.init(
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      account_id: { type: DataTypes.INTEGER, allowNull: false },
      email: { type: DataTypes.STRING(254), allowNull: false },
      name: { type: DataTypes.STRING(100), allowNull: false },
      role: { type: DataTypes.STRING(20), allowNull: false },
      token_hash: { type: DataTypes.CHAR(64), allowNull: false },
      invited_by: DataTypes.INTEGER,
      expires_at: { type: DataTypes.DATE, allowNull: false },
      accepted_at: DataTypes.DATE,
      void_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'login_invitations', modelName: 'LoginInvitation', updatedAt: false },
  );
}
