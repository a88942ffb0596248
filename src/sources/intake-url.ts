/** The public address of each kind (api/routes/form-intake.routes.ts, store-intake.routes.ts), under the app's URL. */
export function intakeUrl(appUrl: string, kind: string, publicKey: string): string {
  const base = appUrl.replace(/\/+$/, '');
  return `${base}/api/web/1.0/intake/${kind === 'form' ? 'forms' : kind}/${encodeURIComponent(publicKey)}`;
}

/**
 * Whether `key` can be a source's public key (generated as URL-safe base64: letters, digits, `-` and `_`, at most the
 * column's 40). Anything else names no source and is never sent to the database (PostgreSQL refuses NUL in text).
 */
export function isPublicKey(key: unknown): key is string {
  return typeof key === 'string' && /^[A-Za-z0-9_-]{1,40}$/.test(key);
}
