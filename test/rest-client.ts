/** A small fetch wrapper for the REST API: JSON in, status + headers + JSON out. */
export interface RestResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export function restClient(baseUrl: string, token?: string) {
  return async function call<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<RestResponse<T>> {
    const res = await fetch(`${baseUrl}/api/web/1.0${path}`, {
      method,
      headers: {
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // non-JSON bodies stay text, and the test asserting JSON fails on them
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  };
}
