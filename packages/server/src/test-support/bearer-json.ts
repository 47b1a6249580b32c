/**
 * For tests and scripts that drive a served API over a real socket: one JSON call as a bearer
 * token. GET without a body; POST with a JSON body, or with JSON Lines text (`raw`, a dataset).
 */

/** What to send: a JSON body, or JSON Lines text; neither for a GET. */
export interface BearerJsonInit {
  body?: unknown;
  raw?: string;
}

/** Calls `path` on the server at `url` as `token`; the parsed JSON answer, or an error naming the status and body. */
export async function bearerJson<T>(url: string, token: string, path: string, init: BearerJsonInit = {}): Promise<T> {
  const response = await fetch(`${url}${path}`, {
    method: init.body === undefined && init.raw === undefined ? "GET" : "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": init.raw === undefined ? "application/json" : "application/jsonl",
    },
    ...(init.raw !== undefined
      ? { body: init.raw }
      : init.body === undefined
        ? {}
        : { body: JSON.stringify(init.body) }),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}
