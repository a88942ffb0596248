/** The copy-paste HTML of a form source (docs/lead-sources.md, "The form snippet"): pure, no framework. */
import { intakeUrl } from './intake-url.js';

/** The form endpoint of a source, under the app's public address. */
export function formAction(publicKey: string, appUrl: string): string {
  return intakeUrl(appUrl, 'form', publicKey);
}

// Escaped for both text and attribute values: the key and the address are the only data in the snippet.
const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The UTM fields the snippet copies from the page's address (kept in leads.utm). */
export const UTM_FIELDS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const;

const field = (name: string, label: string, attrs: string) =>
  `  <p>\n    <label for="lf-${name}">${label}</label><br>\n` +
  `    <input id="lf-${name}" name="${name}" ${attrs}>\n  </p>`;

/**
 * The form as a seller pastes it into any page: a plain POST to the source's endpoint (works without script), English
 * labels to edit, the honeypot `website` hidden from people (off-screen, out of the tab order, never autofilled) but
 * filled by bots that fill every input, and hidden utm_* inputs that a few lines of inline script fill from the
 * page's address (without script the lead simply has no UTM).
 */
export function formSnippet(source: { public_key: string; kind: string }, appUrl: string): string {
  const utm = UTM_FIELDS.map((name) => `  <input type="hidden" name="${name}" value="">`).join('\n');
  return `<!-- LeadFlow form: labels and layout may be edited; keep the field names and the hidden inputs. -->
<form class="leadflow-form" method="post" action="${esc(formAction(source.public_key, appUrl))}" accept-charset="UTF-8">
${field('full_name', 'Full name', 'type="text" autocomplete="name" required minlength="3" maxlength="100"')}
${field('phone', 'Phone', 'type="tel" autocomplete="tel" required minlength="7" maxlength="100"')}
${field('city', 'City', 'type="text" autocomplete="address-level2" minlength="3" maxlength="100"')}
${field('address', 'Address', 'type="text" autocomplete="street-address" minlength="5" maxlength="100"')}
  <div style="position:absolute;left:-10000px;top:auto;width:1px;height:1px;overflow:hidden" aria-hidden="true">
    <label for="lf-website">Leave this field empty</label>
    <input id="lf-website" name="website" type="text" value="" tabindex="-1" autocomplete="off">
  </div>
${utm}
  <p><button type="submit">Send</button></p>
</form>
<script>
(function () {
  var form = document.currentScript.previousElementSibling;
  var query = new URLSearchParams(window.location.search);
  form.querySelectorAll('input[name^="utm_"]').forEach(function (input) {
    input.value = (query.get(input.name) || '').slice(0, 100);
  });
})();
</script>
`;
}
