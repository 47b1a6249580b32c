/**
 * The HTTP+JSON (REST) binding under `/a2a/v1` (and `/a2a/agents/{name}/v1`), with the paths the
 * A2A v1.0 REST transport uses (`/message:send`, `/tasks/{id}:cancel`, …). The SDK ships its REST
 * handler for Express only, so the routes are here, over the same `SemaA2AHandler`, encoding
 * with the SDK's wire codecs and errors with its `toRestErrorBody` (google.rpc.Status shape).
 */
import {
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
} from "@a2a-js/sdk";
import { RequestMalformedError, restStatusFor, toRestErrorBody, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import type { Caller } from "../ingress/caller.ts";
import type { BodyLimits } from "../request-body.ts";
import { contextFor } from "./caller-context.ts";
import { toA2AError } from "./errors.ts";
import { readA2ABody } from "./read-body.ts";
import type { SemaA2AHandler } from "./request-handler.ts";
import { sseResponse } from "./sse.ts";

function json(value: unknown, status = 200): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { "content-type": "application/json; charset=utf-8" },
  });
}

function errorResponse(error: unknown): Response {
  const a2a = toA2AError(error);
  const status = restStatusFor(a2a);
  return json(toRestErrorBody(a2a, status), status);
}

/** Decoding a body or query with the SDK's codecs: what they cannot decode is the request's fault. */
function decode<T>(work: () => T): T {
  try {
    return work();
  } catch {
    throw new RequestMalformedError("the request does not decode as this method's");
  }
}

/**
 * One path segment decoded once (the route gives it still encoded): a malformed percent-encoding
 * is the request's fault, a 400, not a `URIError` surfacing as a 500.
 */
function segment(raw: string, path: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new RequestMalformedError(`${path} is not a valid percent-encoding`);
  }
}

function int(value: string | null, path: string): number | undefined {
  if (value === null) return undefined;
  if (!/^\d{1,6}$/.test(value)) throw new RequestMalformedError(`${path} must be a non-negative integer`);
  return Number(value);
}

export class RestBinding {
  readonly #handler: SemaA2AHandler;

  constructor(handler: SemaA2AHandler) {
    this.#handler = handler;
  }

  /** `rest` is the path after `/v1` (`/tasks/abc:cancel`), still percent-encoded as sent. */
  async handle(
    request: Request,
    rest: string,
    caller: Caller,
    options: BodyLimits & { heartbeatMs: number },
  ): Promise<Response> {
    const abort = new AbortController();
    request.signal.addEventListener("abort", () => abort.abort(), { once: true });
    const context = contextFor(caller, request.headers.get("a2a-version") ?? undefined, abort.signal);
    const method = request.method.toUpperCase();
    const query = new URL(request.url).searchParams;
    const body = async () => (await readA2ABody(request, options, true)) ?? {};
    const handler = this.#handler;
    try {
      if (method === "POST" && rest === "/message:send") {
        const raw = await body();
        const params = decode(() => SendMessageRequest.fromJSON(raw));
        const result = await handler.sendMessage(params, context);
        const payload =
          "messageId" in result
            ? { $case: "message" as const, value: result }
            : { $case: "task" as const, value: result };
        return json(SendMessageResponse.toJSON({ payload }));
      }
      if (method === "POST" && rest === "/message:stream") {
        const raw = await body();
        const params = decode(() => SendMessageRequest.fromJSON(raw));
        return await this.#stream(handler.sendMessageStream(params, context), abort, options.heartbeatMs);
      }
      if (method === "GET" && rest === "/tasks") {
        const params = decode(() =>
          ListTasksRequest.fromJSON({
            contextId: query.get("contextId") ?? "",
            ...(query.get("status") === null ? {} : { status: query.get("status") }),
            pageToken: query.get("pageToken") ?? "",
          }),
        );
        const pageSize = int(query.get("pageSize"), "pageSize");
        const historyLength = int(query.get("historyLength"), "historyLength");
        const includeArtifacts = query.get("includeArtifacts") === "true";
        const listed = await handler.listTasks(
          {
            ...params,
            ...(pageSize === undefined ? {} : { pageSize }),
            ...(historyLength === undefined ? {} : { historyLength }),
            includeArtifacts,
          },
          context,
        );
        return json(ListTasksResponse.toJSON(listed));
      }
      if (method === "GET" && rest === "/extendedAgentCard")
        return json(await handler.getAuthenticatedExtendedAgentCard({ tenant: "" }));
      const task = /^\/tasks\/([^/:]+)(:cancel|:subscribe)?$/.exec(rest);
      if (task?.[1] !== undefined) {
        const id = segment(task[1], "the task id");
        if (task[2] === undefined && method === "GET") {
          const historyLength = int(query.get("historyLength"), "historyLength");
          const found = await handler.getTask(
            { tenant: "", id, ...(historyLength === undefined ? {} : { historyLength }) },
            context,
          );
          return json(Task.toJSON(found));
        }
        if (task[2] === ":cancel" && method === "POST")
          return json(Task.toJSON(await handler.cancelTask({ tenant: "", id, metadata: undefined }, context)));
        if (task[2] === ":subscribe" && (method === "POST" || method === "GET"))
          return await this.#stream(handler.resubscribe({ tenant: "", id }, context), abort, options.heartbeatMs);
      }
      const configs = /^\/tasks\/([^/:]+)\/pushNotificationConfigs(?:\/([^/:]+))?$/.exec(rest);
      if (configs?.[1] !== undefined) {
        const taskId = segment(configs[1], "the task id");
        const id = configs[2] === undefined ? undefined : segment(configs[2], "the config id");
        if (id === undefined && method === "POST") {
          const raw = await body();
          const params = decode(() =>
            TaskPushNotificationConfig.fromJSON({ ...(raw as Record<string, unknown>), taskId }),
          );
          return json(
            TaskPushNotificationConfig.toJSON(await handler.createTaskPushNotificationConfig(params, context)),
          );
        }
        if (id === undefined && method === "GET") {
          const listed = await handler.listTaskPushNotificationConfigs(
            { tenant: "", taskId, pageSize: 0, pageToken: "" },
            context,
          );
          return json(ListTaskPushNotificationConfigsResponse.toJSON(listed));
        }
        if (id !== undefined && method === "GET")
          return json(
            TaskPushNotificationConfig.toJSON(
              await handler.getTaskPushNotificationConfig({ tenant: "", taskId, id }, context),
            ),
          );
        if (id !== undefined && method === "DELETE") {
          await handler.deleteTaskPushNotificationConfig({ tenant: "", taskId, id }, context);
          return new Response(null, { status: 204 });
        }
      }
      throw new UnsupportedOperationError(`no A2A REST method ${method} ${rest}`);
    } catch (error) {
      abort.abort();
      return errorResponse(error);
    }
  }

  /** SSE of `StreamResponse`s; an error before the first is a plain error response. */
  async #stream(items: AsyncGenerator<StreamResponse>, abort: AbortController, heartbeatMs: number): Promise<Response> {
    const first = await items.next();
    if (first.done === true) throw new Error("the stream ended before it began");
    const encoded: AsyncIterator<string> = {
      next: async () => {
        const next = await items.next();
        return next.done === true
          ? { done: true, value: undefined }
          : { done: false, value: JSON.stringify(StreamResponse.toJSON(next.value)) };
      },
      return: async () => {
        await items.return(undefined);
        return { done: true, value: undefined };
      },
    };
    return sseResponse(JSON.stringify(StreamResponse.toJSON(first.value)), encoded, {
      heartbeatMs,
      abort,
      onError: (error) => {
        const a2a = toA2AError(error);
        return `event: error\ndata: ${JSON.stringify(toRestErrorBody(a2a, restStatusFor(a2a)))}\n\n`;
      },
    });
  }
}
