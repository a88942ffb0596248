/**
 * The pages a visitor's browser gets from the form endpoint (docs/lead-sources.md, "The form endpoint"): the thank-you
 * page of a source without a thank-you address, and a refusal saying what was wrong with a link back to the form. Their
 * <style> and <script> blocks are fixed, so the Content-Security-Policy allows them by hash (app/web.ts, fixedPages).
 */

const esc = (s: unknown) =>
  String(s ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

const STYLE = `body{margin:0;min-height:100vh;display:grid;place-items:center;background:#f1f4f8;
font:16px/1.5 system-ui,-apple-system,"Segoe UI",Tahoma,sans-serif;color:#1c2430}
main{width:min(420px,92vw);background:#fff;border-radius:12px;padding:2rem;box-shadow:0 8px 30px rgba(20,40,80,.08)}
h1{margin:0 0 .75rem;font-size:1.3rem}ul{padding-left:1.2rem}a{color:#3040d6}`;

// Back in history keeps what the visitor typed (a new visit of the page would not); without a history, the link goes.
const BACK_SCRIPT = `var back=document.getElementById('back');back.addEventListener('click',function(e){
if(history.length>1){e.preventDefault();history.back();}});`;

function layout(title: string, body: string, script = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title>
<style>${STYLE}</style></head><body><main>${body}</main>${script ? `<script>${script}</script>` : ''}</body></html>`;
}

export function formThankYouPage(): string {
  return layout('Thank you', '<h1>Thank you!</h1><p>We received your request and will call you soon.</p>');
}

/** A refusal: the problems in words and a link back to the page the form was on (`back`: an http(s) address). */
export function formRefusedPage(o: { title: string; problems: string[]; back?: string | null }): string {
  const back = o.back && /^https?:\/\//i.test(o.back) ? o.back : '#';
  return layout(
    o.title,
    `<h1>${esc(o.title)}</h1><ul>${o.problems.map((p) => `<li>${esc(p)}</li>`).join('')}</ul>
<p><a id="back" href="${esc(back)}">Back to the form</a></p>`,
    BACK_SCRIPT,
  );
}

/** Every page of this file, for the policy's hashes of their fixed inline blocks. */
export function formPages(): string[] {
  return [formThankYouPage(), formRefusedPage({ title: '', problems: [] })];
}
