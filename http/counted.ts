/**
 * A count with its noun in the right number, for the English confirmations of the REST API and the dashboard routes:
 * `1 lead created.`, `2 leads created.` (issue 41: "1 leads created." before). The panel's words are i18next plurals.
 */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
