/**
 * The shortest run of a secret's characters that is masked inside other text (a cut echo), and so the shortest API
 * key a carrier is saved with (shipping.service.ts). A shorter form of a secret (a key stored before that rule) is
 * masked only when it is the whole text: inside text it would replace that character everywhere ("TRK1" kept as
 * "TR[secret]1" for a key "K").
 */
export const MIN_RUN = 10;
/** Only the start of a text is kept anywhere (a tracking number, an error line): longer text is cut before masking. */
const MAX_TEXT = 1000;

/** The forms a carrier may echo a secret in: as is, URL-encoded, base64, base64url, hex (compared in lower case). */
function formsOf(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = [
    secret,
    encodeURIComponent(secret),
    bytes.toString('base64'),
    bytes.toString('base64url'),
    bytes.toString('hex'),
  ];
  return [...new Set(forms.map((f) => f.toLowerCase()))];
}

/**
 * `text` with every echo of `secrets` replaced by `[secret]`: in any letter case, URL-encoded, base64 or hex, and any
 * run of at least ten of its characters in a row (an echo cut short). Greedy from the left: at each place, the
 * longest run that some form of a secret contains. A form shorter than ten characters only as the whole text.
 */
export function maskSecretEchoes(text: string, secrets: readonly (string | null | undefined)[]): string {
  const all = secrets.filter((s): s is string => !!s).flatMap(formsOf);
  if (!all.length) return text;
  const source = text.slice(0, MAX_TEXT);
  const lower = source.toLowerCase();
  if (all.includes(lower.trim())) return '[secret]';
  const forms = all.filter((f) => f.length >= MIN_RUN);
  let out = '';
  for (let i = 0; i < source.length;) {
    let run = 0;
    for (const form of forms) {
      let len = Math.max(run + 1, MIN_RUN);
      while (i + len <= source.length && form.includes(lower.slice(i, i + len))) len++;
      if (len - 1 >= MIN_RUN && len - 1 > run) run = len - 1;
    }
    if (run > 0) {
      out += '[secret]';
      i += run;
    } else {
      out += source[i];
      i++;
    }
  }
  return out;
}
