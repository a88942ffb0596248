import { DataTypes, Model, type Sequelize } from 'sequelize';
import type { Role } from '../actor.js';
import type { Language } from '../languages.js';

export class User extends Model {
  declare id: number;
  declare account_id: number;
  declare role: Role;
  declare email: string;
  declare password_hash: string;
  declare name: string;
  declare active: boolean;
  /** When the password last changed (src/auth/credentials.ts); read with the password only. */
  declare credentials_changed_at: Date | null;
  /** The panel language the user chose (src/languages.ts); null follows the browser. */
  declare language: Language | null;
  declare created_at: Date;
  declare updated_at: Date;
}

export function initUser(sequelize: Sequelize) {
  User.init(
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      account_id: { type: DataTypes.INTEGER, allowNull: false },
      role: { type: DataTypes.STRING(10), allowNull: false },
      email: { type: DataTypes.STRING(254), allowNull: false },
      password_hash: { type: DataTypes.STRING(255), allowNull: false },
      name: { type: DataTypes.STRING(100), allowNull: false },
      active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      credentials_changed_at: DataTypes.DATE,
      language: { type: DataTypes.STRING(5), allowNull: true },
    },
    {
      sequelize,
      tableName: 'users',
      modelName: 'User',
      defaultScope: { attributes: { exclude: ['password_hash', 'credentials_changed_at'] } },
      scopes: { withPassword: {} },
    },
  );
}
