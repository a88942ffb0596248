import type { Migration } from '../src/db/migrator.js';

/**
 * The panel language a user chose (admin/locales/<language>.json); null follows the browser's Accept-Language,
 * then English.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(
    "ALTER TABLE users ADD COLUMN language varchar(5) CHECK (language IS NULL OR language IN ('en', 'fr', 'ar'))",
  );
};

export const down: Migration = async ({ context: db }) => {
  await db.query('ALTER TABLE users DROP COLUMN language');
};
