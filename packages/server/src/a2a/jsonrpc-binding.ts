/**
 * The JSON-RPC binding (`POST /a2a`, `POST /a2a/agents/{name}`): the body is read under the
 * server's limits, then the SDK's `JsonRpcTransportHandler` validates the envelope, dispatches the
 * v1.0 method (`SendMessage`, `SendStreamingMessage`, `GetTask`, `ListTasks`, `CancelTask`,
 * `SubscribeToTask`, the push-config methods) to `SemaA2AHandler` and maps errors to A2A codes.
 * Errors are JSON-RPC error objects with HTTP 200; streams are SSE of JSON-RPC responses.
 */
import { A2A_ERROR_CODE, toJsonRpcError } from "@a2a-js/sdk/errors";
import { JsonRpcTransportHandler } from "@a2a-js/sdk/server";
import { HttpError } from "../http-error.ts";
import type { Caller } from "../ingress/caller.ts";
import type { BodyLimits } from "../request-body.ts";
import { contextFor } from "./caller-context.ts";
import { INTERNAL_MESSAGE, toA2AError } from "./errors.ts";
import { readA2ABody } from "./read-body.ts";
import type { SemaA2AHandler } from "./request-handler.ts";
import { sseResponse } from "./sse.ts";

type RpcId = string | number | null;

function idOf(body: unknown): RpcId {
  if (typeof body !== "object" || body === null || !("id" in body)) return null;
  const { id } = body;
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id)) ? id : null;
}

/**
 * The SDK reports an exception it met while decoding params as an internal error carrying the
 * exception's message; those are the request's fault: invalid params, with a message of our own.
 */
function cleaned(error: unknown): unknown {
  if (typeof error !== "object" || error === null || !("code" in error)) return error;
  const { code, message } = error as { code: unknown; message: unknown };
  if (code === A2A_ERROR_CODE.INTERNAL_ERROR && message !== INTERNAL_MESSAGE)
    return {
      code: A2A_ERROR_CODE.INVALID_PARAMS,
      message: "invalid params: the params do not decode as this method's",
    };
  return error;
}

function rpcJson(value: unknown): Response {
  return new Response(JSON.stringify(value), {
    status: 200,
    headers: { "content-type": "application/json; charset=utf-8" },
  });
}

function rpcError(id: RpcId, error: unknown) {
  return { jsonrpc: "2.0", id, error: cleaned(toJsonRpcError(toA2AError(error))) };
}

export class JsonRpcBinding {
  readonly #transport: JsonRpcTransportHandler;

  constructor(handler: SemaA2AHandler) {
    this.#transport = new JsonRpcTransportHandler(handler);
  }

  async handle(request: Request, caller: Caller, options: BodyLimits & { heartbeatMs: number }): Promise<Response> {
    let body: unknown;
    try {
      body = await readA2ABody(request, options, false);
    } catch (error) {
      if (error instanceof HttpError && error.status === 400 && error.message.includes("not valid JSON"))
        return rpcJson({
          jsonrpc: "2.0",
          id: null,
          error: { code: A2A_ERROR_CODE.PARSE_ERROR, message: "parse error" },
        });
      return rpcJson(rpcError(null, error));
    }
    if (typeof body !== "object" || body === null || Array.isArray(body))
      return rpcJson({
        jsonrpc: "2.0",
        id: null,
        error: { code: A2A_ERROR_CODE.INVALID_REQUEST, message: "a JSON-RPC request must be an object (no batches)" },
      });
    // The envelope is checked here (JSON-RPC 2.0 §4: -32600 Invalid Request), before the SDK's
    // handler, which reports these as invalid params.
    const envelope = body as Record<string, unknown>;
    const rawId = envelope.id;
    const idValid = !("id" in envelope) || rawId === null || typeof rawId === "string" || Number.isInteger(rawId);
    if (envelope.jsonrpc !== "2.0" || typeof envelope.method !== "string" || envelope.method === "" || !idValid)
      return rpcJson({
        jsonrpc: "2.0",
        id: idValid ? idOf(body) : null,
        error: {
          code: A2A_ERROR_CODE.INVALID_REQUEST,
          message: 'invalid request: a JSON-RPC 2.0 request needs jsonrpc "2.0", a method and a string or integer id',
        },
      });
    const id = idOf(body);
    const abort = new AbortController();
    request.signal.addEventListener("abort", () => abort.abort(), { once: true });
    const context = contextFor(caller, request.headers.get("a2a-version") ?? undefined, abort.signal);
    const result = await this.#transport.handle(body as Record<string, unknown>, context);
    if (!(Symbol.asyncIterator in result)) {
      const response = result as { error?: unknown };
      return rpcJson(response.error === undefined ? response : { ...response, error: cleaned(response.error) });
    }
    const items = result[Symbol.asyncIterator]();
    let first: IteratorResult<unknown>;
    try {
      first = await items.next();
    } catch (error) {
      abort.abort();
      return rpcJson(rpcError(id, error));
    }
    if (first.done === true) return rpcJson(rpcError(id, new Error("the stream ended before it began")));
    const encoded: AsyncIterator<string> = {
      next: async () => {
        const next = await items.next();
        return next.done === true
          ? { done: true, value: undefined }
          : { done: false, value: JSON.stringify(next.value) };
      },
      return: async () => {
        await items.return?.(undefined);
        return { done: true, value: undefined };
      },
    };
    return sseResponse(JSON.stringify(first.value), encoded, {
      heartbeatMs: options.heartbeatMs,
      abort,
      onError: (error) => `data: ${JSON.stringify(rpcError(id, error))}\n\n`,
    });
  }
}
