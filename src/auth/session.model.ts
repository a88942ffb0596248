import { DataTypes, Model, type Sequelize } from 'sequelize';

/** Table of connect-session-sequelize; user_id lets a password reset end every session of a user. */
export class Session extends Model {
  declare sid: string;
  declare user_id: number | null;
  declare expires: Date | null;
  declare data: string | null;
}

export function initSession(sequelize: Sequelize) {
  Session.init(
    {
      sid: { type: DataTypes.STRING(255), primaryKey: true },
      user_id: DataTypes.INTEGER,
      expires: DataTypes.DATE,
      data: DataTypes.TEXT,
    },
    {
      sequelize,
      tableName: 'sessions',
      modelName: 'Session',
      underscored: false,
      createdAt: 'createdAt',
      updatedAt: 'updatedAt',
    },
  );
}
