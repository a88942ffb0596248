/** The public address of each kind (api/routes/form-intake.routes.ts, store-intake.routes.ts), under the app's URL. */
export function intakeUrl(appUrl: string, kind: string, publicKey: string): string {
  const base = appUrl.replace(/\/+$/, '');
  return `${base}/api/web/1.0/intake/${kind === 'form' ? 'forms' : kind}/${encodeURIComponent(publicKey)}`;
}
