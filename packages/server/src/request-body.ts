/**
 * Reading a JSON request body safely: the content type is checked, the bytes are counted as they
 * arrive (a body over the limit is refused without being buffered), decoded as strict UTF-8, its
 * shape checked on the text (nesting depth, reserved keys: see `json-limits.ts`), and parsed;
 * every string in it must be well-formed Unicode. A text body (an export file) is read the same
 * way up to its decoding. Each failure is a typed 4xx.
 */
import { badRequest, HttpError } from "./http-error.ts";
import { illFormedPath, jsonShapeError } from "./json-limits.ts";

/** The limits a body is read under. */
export interface BodyLimits {
  /** Bytes (413 above). */
  maxBodyBytes: number;
  /** Nested arrays and objects (400 above). */
  maxJsonDepth: number;
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, "PayloadTooLarge", `the request body is larger than ${limit} bytes`, {
    details: { limit },
  });
}

/** One of `types`, optionally with `charset=utf-8`; anything else is a 415 saying what was wanted. */
function assertContentType(header: string | undefined, types: readonly string[], what: string): void {
  const [type = "", ...params] = (header ?? "").split(";").map((part) => part.trim().toLowerCase());
  const charsetOk = params.every((param) => !param.startsWith("charset=") || /^charset="?utf-8"?$/.test(param));
  if (!types.includes(type) || !charsetOk)
    throw new HttpError(415, "UnsupportedMediaType", `the request body must be ${what} (UTF-8)`, {
      details: { contentType: header ?? null },
    });
}

async function readBytes(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  if (request.body === null) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * The parsed JSON body. An empty body is `undefined` when `optional`, a 400 otherwise (a body
 * is only required to be JSON when there is one).
 */
export async function readJsonBody(request: Request, limits: BodyLimits, optional: boolean): Promise<unknown> {
  const bytes = await readBytes(request, limits.maxBodyBytes);
  if (bytes.byteLength === 0) {
    if (optional) return undefined;
    throw badRequest("a JSON body is required", "body");
  }
  assertContentType(request.headers.get("content-type") ?? undefined, ["application/json"], "application/json");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw badRequest("the request body is not valid UTF-8", "body");
  }
  const shape = jsonShapeError(text, limits.maxJsonDepth);
  if (shape !== undefined) throw shape;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw badRequest("the request body is not valid JSON", "body", {
      reason: error instanceof Error ? error.message : String(error),
    });
  }
  const bad = illFormedPath(value, "body");
  if (bad !== undefined) throw badRequest("a string in the body is not well-formed Unicode (lone surrogate)", bad);
  return value;
}

/**
 * A text body of one of `mediaTypes` (an export file): its media type checked first (415
 * otherwise; a charset, if any, must be UTF-8), its bytes counted as they arrive (413 above
 * `maxBytes`), decoded as strict UTF-8 (400 otherwise; a byte order mark is dropped). An empty
 * body is a 400.
 */
export async function readTextBody(request: Request, mediaTypes: readonly string[], maxBytes: number): Promise<string> {
  // The type first: a body of the wrong kind is refused before its bytes are read.
  assertContentType(request.headers.get("content-type") ?? undefined, mediaTypes, mediaTypes.join(" or "));
  const bytes = await readBytes(request, maxBytes);
  if (bytes.byteLength === 0) throw badRequest("a body is required", "body");
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw badRequest("the request body is not valid UTF-8", "body");
  }
}
