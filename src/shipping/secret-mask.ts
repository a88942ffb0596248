/** The shortest run of a secret's characters that is masked when it stands alone (a cut echo). */
const MIN_RUN = 10;
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
 * longest run that some form of a secret contains.
 */
export function maskSecretEchoes(text: string, secrets: readonly (string | null | undefined)[]): string {
  const forms = secrets.filter((s): s is string => !!s).flatMap(formsOf);
  if (!forms.length) return text;
  const source = text.slice(0, MAX_TEXT);
  const lower = source.toLowerCase();
  let out = '';
  for (let i = 0; i < source.length;) {
    let run = 0;
    for (const form of forms) {
      const min = Math.min(MIN_RUN, form.length);
      let len = Math.max(run + 1, min);
      while (i + len <= source.length && form.includes(lower.slice(i, i + len))) len++;
      if (len - 1 >= min && len - 1 > run) run = len - 1;
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
