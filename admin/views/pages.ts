/** Small server-rendered pages of the session login: self-contained (no external assets), escaped. */
import { direction, LANGUAGES, translator, type Language } from '../locale-text.js';

// Any value (a form field sent twice arrives as a list): escaped as text, never a throw while a page is rendered.
const esc = (s: unknown) =>
  String(s ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** Every page takes the language it is written in (admin/locale-text.ts, requestLanguage); English by default. */
interface Lang {
  lang?: Language;
}

/** The words of a page's language, each escaped for HTML. */
const wordsOf = (lang: Language | undefined) => {
  const t = translator(lang ?? 'en');
  return (key: string, params?: Record<string, string | number>) => esc(t(key, params));
};

/** Each language in its own name, linked to the same page in it (the choice is kept in a cookie). */
function languageLinks(lang: Language, path: string): string {
  const names = translator(lang);
  return `<nav class="langs" aria-label="${esc(names('site.login.language'))}">${LANGUAGES.map((l) =>
    l === lang
      ? `<b lang="${l}">${esc(names(`components.LanguageSelector.availableLanguages.${l}`))}</b>`
      : `<a href="${path}?lang=${l}" lang="${l}" hreflang="${l}">${esc(
          names(`components.LanguageSelector.availableLanguages.${l}`),
        )}</a>`,
  ).join(' · ')}</nav>`;
}

function layout(lang: Language | undefined, title: string, body: string): string {
  const language = lang ?? 'en';
  return `<!doctype html><html lang="${language}" dir="${direction(language)}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} · LeadFlow</title><style>
*{box-sizing:border-box}body{margin:0;min-height:100vh;display:grid;place-items:center;background:#f1f4f8;
font:15px/1.5 system-ui,-apple-system,"Segoe UI",Tahoma,sans-serif;color:#1c2430}
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
.langs{margin-top:1.25rem;font-size:.85rem;text-align:center;color:#4a5566}
a{color:#3040d6}</style></head><body><main><div class="brand">LeadFlow</div>${body}</main></body></html>`;
}

const message = (error?: string, info?: string) =>
  (error ? `<div class="msg err" role="alert">${esc(error)}</div>` : '') +
  (info ? `<div class="msg ok" role="status">${esc(info)}</div>` : '');

export function loginPage(o: { csrf: string; error?: string; info?: string; email?: string; next?: string } & Lang) {
  const w = wordsOf(o.lang);
  return layout(
    o.lang,
    w('site.login.title'),
    `<h1>${w('site.login.title')}</h1>${message(o.error, o.info)}
<form method="post" action="/login"><input type="hidden" name="_csrf" value="${esc(o.csrf)}">
<input type="hidden" name="next" value="${esc(o.next ?? '')}">
<label for="email">${w('site.login.email')}</label><input id="email" name="email" type="email" dir="ltr"
autocomplete="username" required value="${esc(o.email ?? '')}">
<label for="password">${w('site.login.password')}</label><input id="password" name="password" type="password"
autocomplete="current-password" required>
<button type="submit">${w('site.login.submit')}</button></form>
<div class="links"><a href="/reset-password">${w('site.login.forgot')}</a></div>
${languageLinks(o.lang ?? 'en', '/login')}`,
  );
}

export function forgotPage(o: { csrf: string; info?: string; error?: string } & Lang): string {
  const w = wordsOf(o.lang);
  return layout(
    o.lang,
    w('site.forgot.title'),
    `<h1>${w('site.forgot.heading')}</h1>${message(o.error, o.info)}
<form method="post" action="/reset-password"><input type="hidden" name="_csrf" value="${esc(o.csrf)}">
<label for="email">${w('site.login.email')}</label><input id="email" name="email" type="email" dir="ltr" required>
<button type="submit">${w('site.forgot.submit')}</button></form>
<div class="links"><a href="/login">${w('site.forgot.back')}</a></div>
${languageLinks(o.lang ?? 'en', '/reset-password')}`,
  );
}

/** Log out asked by a link from elsewhere: one button that POSTs /logout with the CSRF token. */
export function logoutPage(o: { csrf: string } & Lang): string {
  const w = wordsOf(o.lang);
  return layout(
    o.lang,
    w('site.logout.title'),
    `<h1>${w('site.logout.heading')}</h1>
<form method="post" action="/logout"><input type="hidden" name="_csrf" value="${esc(o.csrf)}">
<button type="submit">${w('site.logout.submit')}</button></form>
<div class="links"><a href="/admin">${w('site.logout.back')}</a></div>`,
  );
}

export function resetPage(o: { csrf: string; token: string; error?: string; valid: boolean } & Lang): string {
  const w = wordsOf(o.lang);
  if (!o.valid)
    return layout(
      o.lang,
      w('site.forgot.title'),
      `<h1>${w('site.reset.expiredTitle')}</h1>${message(translator(o.lang ?? 'en')('site.reset.expired'))}
<div class="links"><a href="/reset-password">${w('site.reset.askAgain')}</a></div>`,
    );
  return layout(
    o.lang,
    w('site.reset.title'),
    `<h1>${w('site.reset.heading')}</h1>${message(o.error)}
<form method="post" action="/reset-password/${encodeURIComponent(o.token)}">
<input type="hidden" name="_csrf" value="${esc(o.csrf)}">
<label for="password">${w('site.reset.newPassword')}</label><input id="password" name="password" type="password"
minlength="8" autocomplete="new-password" required>
<label for="password_confirmation">${w('site.reset.repeat')}</label><input id="password_confirmation"
name="password_confirmation" type="password" minlength="8" required>
<button type="submit">${w('site.reset.submit')}</button></form>`,
  );
}

/** An invitation's link: the account and email invited, and the new password typed twice (the reset page's rules). */
export function invitationPage(
  o: {
    csrf: string;
    token?: string;
    valid: boolean;
    invitation?: { email: string; account_name: string } | null;
    error?: string;
  } & Lang,
): string {
  const w = wordsOf(o.lang);
  if (!o.valid)
    return layout(
      o.lang,
      w('site.invitation.title'),
      `<h1>${w('site.invitation.title')}</h1>
${message(o.error ?? translator(o.lang ?? 'en')('site.invitation.invalid'))}
<div class="links"><a href="/login">${w('site.invitation.toLogin')}</a></div>`,
    );
  // the email is an address: left to right inside any sentence (an isolate, so Arabic around it keeps its order)
  const email = `<b dir="ltr">${esc(o.invitation?.email)}</b>`;
  return layout(
    o.lang,
    w('site.invitation.acceptTitle'),
    `<h1>${w('site.invitation.heading', { account: o.invitation?.account_name ?? '' })}</h1>
<p class="note">${w('site.invitation.loginWillBe', { email: '\u0000' }).replace('\u0000', email)}</p>
${message(o.error)}<form method="post" action="/invitation"><input type="hidden" name="_csrf" value="${esc(o.csrf)}">
<input type="hidden" name="token" value="${esc(o.token ?? '')}">
<label for="password">${w('site.invitation.password')}</label><input id="password" name="password" type="password"
minlength="8" autocomplete="new-password" required>
<label for="password_confirmation">${w('site.invitation.repeat')}</label><input id="password_confirmation"
name="password_confirmation" type="password" minlength="8" required>
<button type="submit">${w('site.invitation.submit')}</button></form>`,
  );
}

/**
 * A page the signed-in user's role may not use, refused before any form is shown (`title`: a key of site.*). One
 * options object like every page here: app/web.ts renders each page with `{ csrf }` for its inline blocks.
 */
export function notAllowedPage(o: Lang & { title?: string } = {}): string {
  const w = wordsOf(o.lang);
  const title = o.title ?? 'site.import.title';
  return layout(
    o.lang,
    w(title),
    `<h1>${w(title)}</h1>${message(translator(o.lang ?? 'en')('site.notAllowed.message'))}
<div class="links"><a href="/admin">${w('site.notAllowed.back')}</a></div>`,
  );
}
