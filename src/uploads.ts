import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Joi from 'joi';
import type { Actor } from './actor.js';
import { newRowAccount } from './chosen-account.js';
import type { Core } from './context.js';
import { isSystemWide } from './policy.js';
import { ValidationError } from './errors.js';
import { PRIVATE_FILE_MODE, privateDir } from './private-files.js';
import { isFitText, validate } from './validation.js';
import { readHead, sniffType, workbookExpansionProblem, type ExpansionLimits, type SheetType } from './spreadsheet.js';

/** An upload as multer leaves it: a temporary file, the name the browser gave it, its size. */
export interface UploadedFile {
  path: string;
  originalname: string;
  size: number;
}

/** A workbook's limits follow the upload limit: a full-size real workbook expands far less than these. */
export const expansionLimits = (config: Core['config']): ExpansionLimits => ({
  sharedStringsBytes: config.importMaxSharedStringsBytes,
  totalBytes: config.importMaxBytes * 50,
  ratio: 200,
});

/**
 * Checks a spreadsheet upload (its name's type, its size, its content's type, a workbook's expansion) and keeps it
 * under DATA_DIR/uploads/<account>, readable by this service alone; answers where it is, its type and its first bytes.
 * Every import (leads, stock counts) takes its file through here; a refusal is a 422 under `file`.
 */
export async function keepUpload(core: Core, accountId: number, file: UploadedFile) {
  // the name is kept with the run: one no text column can hold (a NUL, a lone surrogate) is refused here, not by the
  // database after the file was moved
  if (!isFitText(file.originalname) || file.originalname.length > 255)
    throw ValidationError.single('file', 'The file name must be text of at most 255 characters.');
  const ext = path.extname(file.originalname).slice(1).toLowerCase();
  if (ext !== 'xlsx' && ext !== 'csv')
    throw ValidationError.single('file', 'The file must be a file of type: xlsx, csv.');
  if (file.size > core.config.importMaxBytes)
    throw ValidationError.single(
      'file',
      `The file must not be greater than ${Math.round(core.config.importMaxBytes / 1024)} kilobytes.`,
    );
  const head = await readHead(file.path);
  const type = sniffType(head);
  if (type !== ext) throw ValidationError.single('file', `The file content is not a valid .${ext} spreadsheet.`);
  const bomb = type === 'xlsx' ? await workbookExpansionProblem(file.path, expansionLimits(core.config)) : null;
  if (bomb) throw ValidationError.single('file', bomb);
  const dir = path.join(core.config.dataDir, 'uploads', String(accountId));
  await privateDir(dir);
  const stored = path.join(dir, `${crypto.randomUUID()}.${ext}`);
  await fs.promises.rename(file.path, stored).catch(async () => {
    await fs.promises.copyFile(file.path, stored);
  });
  await fs.promises.chmod(stored, PRIVATE_FILE_MODE);
  return { stored, type: type as SheetType, head };
}

/** Runs `write` (the run's row and its job) and removes the kept upload when it fails: no file outlives a refusal. */
export async function withKeptUpload<T>(stored: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    await fs.promises.rm(stored, { force: true });
    throw err;
  }
}

/** An upload's other field: the account an admin imports into (a tenant's go to their own, whatever it names). */
const uploadOptionsSchema = Joi.object({ account_id: Joi.number().integer().positive().empty('') });

/**
 * The account an import's rows go to (leads, stock counts): a tenant's own whatever the form names; an admin must
 * name one (the import page's required list), so nothing lands in "Back Office" by omission.
 */
export async function uploadAccount(core: Core, actor: Actor, options: unknown): Promise<number> {
  const { account_id } = validate<{ account_id?: number }>(uploadOptionsSchema, options ?? {});
  if (account_id === undefined && isSystemWide(actor))
    throw ValidationError.single('account_id', 'The account_id field is required.');
  return newRowAccount(core.db.sequelize, actor, account_id);
}
