/** Digits only; a leading `+` is kept so "+212 6…" and "212 6…" stay distinct (decisions.md). */
export function normalizePhone(phone: string): string {
  const trimmed = phone.trim();
  return (trimmed.startsWith('+') ? '+' : '') + trimmed.replace(/\D/g, '');
}
