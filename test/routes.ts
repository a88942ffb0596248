type Layer = {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  regexp?: RegExp;
};

/** A route Express knows: its method, its path as declared (`/leads/:reference/show`) and its mount. */
export interface KnownRoute {
  method: string;
  path: string;
  mount: string;
  /** Whether one of the middlewares asked about runs before the route (for its path). */
  guarded: boolean;
}

/**
 * The (method, path) of every route Express knows, with the REST mount told apart; the app's own list, not a copy.
 * `guards`: middlewares whose place in the stack tells `guarded` (a layer before the route whose path matches it).
 */
export function expressRoutes(app: { _router: { stack: Layer[] } }, guards: unknown[] = []): KnownRoute[] {
  const out: KnownRoute[] = [];
  const walk = (stack: Layer[], mount: string, before: RegExp[]) => {
    const seen = [...before];
    for (const layer of stack) {
      if (guards.includes(layer.handle) && layer.regexp) seen.push(layer.regexp);
      if (layer.route) {
        const guarded = seen.some((re) => re.test(layer.route!.path));
        for (const m of Object.keys(layer.route.methods))
          if (m !== '_all') out.push({ method: m, path: layer.route.path, mount, guarded });
      } else if (layer.handle?.stack) {
        const rest = String(layer.regexp).includes('api\\/web');
        // a guard outside the REST mount never runs for it (its paths are relative to the mount)
        walk(layer.handle.stack, rest ? '/api/web/1.0' : mount, rest ? [] : seen);
      }
    }
  };
  walk(app._router.stack, '', []);
  return out;
}

/** The Express app among a server's request listeners (test servers put the contract's watcher before it). */
export function appOf(server: { listeners(event: 'request'): unknown[] }): { _router: { stack: Layer[] } } {
  return server.listeners('request').find((l) => !!(l as { _router?: unknown })._router) as never;
}
