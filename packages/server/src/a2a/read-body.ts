/**
 * A2A request bodies are read like every other body of the server (`readJsonBody`: size, depth,
 * strict UTF-8), accepting A2A's own media type `application/a2a+json` beside `application/json`.
 */
import type { BodyLimits } from "../request-body.ts";
import { readJsonBody } from "../request-body.ts";

export function readA2ABody(request: Request, limits: BodyLimits, optional: boolean): Promise<unknown> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/a2a\+json\s*(;|$)/i.test(type)) return readJsonBody(request, limits, optional);
  const headers = new Headers(request.headers);
  headers.set("content-type", type.replace(/^application\/a2a\+json/i, "application/json"));
  return readJsonBody(new Request(request, { headers }), limits, optional);
}
