/** Small server-rendered pages of the session login: self-contained (no external assets), escaped. */
// Any value (a form field sent twice arrives as a list): escaped as text, never a throw while a page is rendered.
const esc = (s: unknown) =>
  String(s ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)} · LeadFlow</title><style>
*{box-sizing:border-box}body{margin:0;min-height:100vh;display:grid;place-items:center;background:#f1f4f8;
font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1c2430}
main{width:min(380px,92vw);background:#fff;border-radius:12px;box-shadow:0 8px 30px rgba(20,40,80,.08);padding:2rem}
h1{margin:0 0 .25rem;font-size:1.35rem}.brand{font-weight:700;color:#3040d6;letter-spacing:.02em;margin-bottom:1.25rem}
label{display:block;margin:.9rem 0 .3rem;font-weight:600;font-size:.9rem}
input,select{width:100%;padding:.65rem .75rem;border:1px solid #cfd7e3;border-radius:8px;font:inherit}
input:focus{outline:2px solid #3040d6;border-color:transparent}
button{margin-top:1.25rem;width:100%;padding:.7rem;border:0;border-radius:8px;background:#3040d6;color:#fff;
font:inherit;font-weight:600;cursor:pointer}
button:hover{background:#2533b8}.msg{padding:.6rem .75rem;border-radius:8px;margin:.75rem 0;font-size:.9rem}
.err{background:#fdecec;color:#9b1c1c}.ok{background:#e8f6ee;color:#1d6b3f}
.links{margin-top:1rem;font-size:.88rem;text-align:center}.note{font-size:.9rem;color:#4a5566}
a{color:#3040d6}</style></head><body><main><div class="brand">LeadFlow</div>${body}</main></body></html>`;
}

const message = (error?: string, info?: string) =>
  (error ? `<div class="msg err" role="alert">${esc(error)}</div>` : '') +
  (info ? `<div class="msg ok" role="status">${esc(info)}</div>` : '');

export function loginPage(o: { csrf: string; error?: string; info?: string; email?: string; next?: string }): string {
  return layout(
    'Log in',
    `<h1>Log in</h1>${message(o.error, o.info)}
<form method="post" action="/login"><input type="hidden" name="_csrf" value="${esc(o.csrf)}">
<input type="hidden" name="next" value="${esc(o.next ?? '')}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required
value="${esc(o.email ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password"
autocomplete="current-password" required>
<button type="submit">Log in</button></form>
<div class="links"><a href="/reset-password">Forgot your password?</a></div>`,
  );
}

export function forgotPage(o: { csrf: string; info?: string; error?: string }): string {
  return layout(
    'Reset password',
    `<h1>Reset your password</h1>${message(o.error, o.info)}
<form method="post" action="/reset-password"><input type="hidden" name="_csrf" value="${esc(o.csrf)}">
<label for="email">Email</label><input id="email" name="email" type="email" required>
<button type="submit">Send reset link</button></form><div class="links"><a href="/login">Back to log in</a></div>`,
  );
}

/** Log out asked by a link from elsewhere: one button that POSTs /logout with the CSRF token. */
export function logoutPage(o: { csrf: string }): string {
  return layout(
    'Log out',
    `<h1>Log out?</h1><form method="post" action="/logout"><input type="hidden" name="_csrf" value="${esc(o.csrf)}">
<button type="submit">Log out</button></form><div class="links"><a href="/admin">Back to the panel</a></div>`,
  );
}

export function resetPage(o: { csrf: string; token: string; error?: string; valid: boolean }): string {
  if (!o.valid)
    return layout(
      'Reset password',
      `<h1>Link expired</h1>${message('This password reset link is invalid or has expired.')}
<div class="links"><a href="/reset-password">Ask for a new link</a></div>`,
    );
  return layout(
    'Choose a password',
    `<h1>Choose a new password</h1>${message(o.error)}
<form method="post" action="/reset-password/${encodeURIComponent(o.token)}">
<input type="hidden" name="_csrf" value="${esc(o.csrf)}">
<label for="password">New password</label><input id="password" name="password" type="password" minlength="8"
autocomplete="new-password" required>
<label for="password_confirmation">Repeat it</label><input id="password_confirmation" name="password_confirmation"
type="password" minlength="8" required>
<button type="submit">Set password</button></form>`,
  );
}

/** An invitation's link: the account and email invited, and the new password typed twice (the reset page's rules). */
export function invitationPage(o: {
  csrf: string;
  token?: string;
  valid: boolean;
  invitation?: { email: string; account_name: string } | null;
  error?: string;
}): string {
  if (!o.valid)
    return layout(
      'Invitation',
      `<h1>Invitation</h1>${message(o.error ?? 'This invitation link is invalid, used or has expired.')}
<div class="links"><a href="/login">Go to log in</a></div>`,
    );
  return layout(
    'Accept the invitation',
    `<h1>Join ${esc(o.invitation?.account_name)}</h1>
<p class="note">Your LeadFlow login will be <b>${esc(o.invitation?.email)}</b>. Choose its password.</p>
${message(o.error)}<form method="post" action="/invitation"><input type="hidden" name="_csrf" value="${esc(o.csrf)}">
<input type="hidden" name="token" value="${esc(o.token ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" minlength="8"
autocomplete="new-password" required>
<label for="password_confirmation">Repeat it</label><input id="password_confirmation" name="password_confirmation"
type="password" minlength="8" required>
<button type="submit">Create my login</button></form>`,
  );
}

/** A page the signed-in user's role may not use, refused before any form is shown. */
export function notAllowedPage(title: string): string {
  return layout(
    title,
    `<h1>${esc(title)}</h1>${message('You are not allowed to do this.')}
<div class="links"><a href="/admin">Back to the panel</a></div>`,
  );
}

/** An admin's choice of the account the leads go to (sellers import into their own and see no choice). */
const accountSelect = (accounts: { id: number; name: string }[]) =>
  `<label for="account_id">Account</label><select id="account_id" name="account_id" required>
<option value="">Choose the account…</option>${accounts
    .map((a) => `<option value="${esc(a.id)}">${esc(a.name)} (#${esc(a.id)})</option>`)
    .join('')}</select>`;

/** The panel's "Import file" page: posts the file with the CSRF header and shows the queued run. */
export function importPage(o: { accounts?: { id: number; name: string }[] } = {}): string {
  const columns =
    'Required columns: <b>phone</b> and <b>sku</b>; optional: full_name, city, area, address, quantity, price; ' +
    'any other column is kept as custom data.';
  return layout(
    'Import leads',
    `<h1>Import leads</h1><p class="note">An .xlsx or .csv file with a header row.
${columns}</p>
<form id="f">${o.accounts ? accountSelect(o.accounts) : ''}
<label for="file">File</label><input id="file" name="file" type="file" accept=".csv,.xlsx" required>
<button type="submit">Upload and import</button></form><div id="out"></div>
<div class="links">
<a href="/admin/resources/import_runs">Import runs</a> · <a href="/admin/resources/leads">Leads</a></div>
<script>
document.getElementById('f').addEventListener('submit', async (e) => {
  e.preventDefault();
  const out = document.getElementById('out');
  const { token } = await (await fetch('/csrf-token', { headers: { accept: 'application/json' } })).json();
  const body = new FormData(e.target);
  const res = await fetch('/leads/import', {
    method: 'POST',
    body,
    headers: { accept: 'application/json', 'x-csrf-token': token },
  });
  const json = await res.json();
  const ok = res.status === 202;
  out.className = 'msg ' + (ok ? 'ok' : 'err');
  out.textContent = ok
    ? 'Import #' + json.id + ' queued: follow it under Import runs.'
    : (json.message || 'Upload failed.');
});
</script>`,
  );
}
