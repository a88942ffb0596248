import {
  getCreateIndexesSQL,
  getCreateTableSQL,
  getDropTableSQL,
  getUpdateTimestampTriggerSQL,
} from '@agendajs/postgres-backend';
import type { Migration } from '../src/db/migrator.js';

// Agenda runs with ensureSchema: false; two processes creating the table at once on a fresh database collide.
export const up: Migration = async ({ context: db }) => {
  await db.query(getCreateTableSQL('agenda_jobs'));
  for (const sql of getCreateIndexesSQL('agenda_jobs')) await db.query(sql);
  await db.query(getUpdateTimestampTriggerSQL('agenda_jobs'));
};

export const down: Migration = async ({ context: db }) => {
  await db.query(getDropTableSQL('agenda_jobs'));
  await db.query('DROP FUNCTION IF EXISTS update_agenda_jobs_updated_at()');
};
