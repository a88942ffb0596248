/** A browser-like client for the dashboard: keeps cookies and sends the CSRF token on every request. */
export interface SessionClient {
  fetch(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  json<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  cookies: Map<string, string>;
  csrf: string;
}

export function sessionClient(baseUrl: string): SessionClient {
  const cookies = new Map<string, string>();
  const client: SessionClient = {
    cookies,
    csrf: '',
    async fetch(path, init = {}) {
      const headers = new Headers(init.headers);
      if (cookies.size) headers.set('cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '));
      if (client.csrf && !headers.has('x-csrf-token')) headers.set('x-csrf-token', client.csrf);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(init.json);
      }
      if (!headers.has('accept')) headers.set('accept', 'application/json');
      const res = await fetch(`${baseUrl}${path}`, { ...init, headers, body, redirect: 'manual' });
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const i = pair.indexOf('=');
        const name = pair.slice(0, i);
        const value = pair.slice(i + 1);
        if (/expires=Thu, 01 Jan 1970/i.test(c) || value === '') cookies.delete(name);
        else cookies.set(name, value);
      }
      return res;
    },
    async json(method, path, body) {
      const res = await client.fetch(path, { method, ...(body !== undefined ? { json: body } : {}) });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* left as text so assertions on JSON fail visibly */
      }
      return { status: res.status, body: parsed as never };
    },
  };
  return client;
}

/** Logs in through POST /login (JSON) and returns a client holding the session and its CSRF token. */
export async function login(baseUrl: string, email: string, password: string): Promise<SessionClient> {
  const c = sessionClient(baseUrl);
  c.csrf = (await c.json<{ token: string }>('GET', '/csrf-token')).body.token;
  const res = await c.json<{ csrf_token: string; message: string }>('POST', '/login', { email, password });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  c.csrf = res.body.csrf_token;
  return c;
}

/** Logs in the way a browser does: the login page's form, its hidden CSRF field, a form POST (not followed). */
export async function formLogin(
  baseUrl: string,
  email: string,
  password: string,
  extra: Record<string, string> | [string, string][] = {},
): Promise<Response> {
  const c = sessionClient(baseUrl);
  const page = await (await c.fetch('/login', { headers: { accept: 'text/html' } })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1];
  // pairs may repeat a field, as a tampered form can
  const fields = [
    ['_csrf', csrf],
    ['email', email],
    ['password', password],
    ...(Array.isArray(extra) ? extra : Object.entries(extra)),
  ];
  return c.fetch('/login', {
    method: 'POST',
    headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

/** An AdminJS API call of the panel (`/admin/api/resources/<path>`) from a page of `origin`, as the panel makes it. */
export async function panelApi(
  c: SessionClient,
  origin: string,
  method: string,
  path: string,
  json?: unknown,
): Promise<{ status: number; text: string; body: any }> {
  const r = await c.fetch(`/admin/api/resources/${path}`, {
    method,
    headers: { origin },
    ...(json !== undefined ? { json } : {}),
  });
  return { status: r.status, text: await r.clone().text(), body: await r.json().catch(() => null) };
}
