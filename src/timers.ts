/** Waits `ms`; the timer never keeps the process alive on its own. */
export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** Waits for `p` at most `ms`: resolves when either is done (what `p` did is not reported). For shutdown steps. */
export const within = (p: Promise<unknown>, ms: number): Promise<void> =>
  Promise.race([
    p.then(
      () => {},
      () => {},
    ),
    delay(ms),
  ]);

/** `p`, or a rejection after `ms` if it has not settled by then. For probes that must answer in time. */
export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
