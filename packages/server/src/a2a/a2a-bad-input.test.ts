/**
 * The bad-input corpus over A2A (beside the HTTP corpus of bad-input.test.ts): malformed
 * JSON-RPC, batches, wrong methods and params, unknown tasks, oversized and unsupported parts, on
 * both bindings. Every case is a typed A2A error — never a 5xx nor a stack — and nothing is stored.
 */

import { MemoryStore } from "@sema-agent/core";
import { describe, expect, it } from "vitest";
import { allProtocols } from "../test-support/all-protocols.ts";
import { APPROVAL_SCRIPT, apiFixture, createTask, runOnce } from "../test-support/api-fixture.ts";
import { MemoryPushConfigStore } from "./push-config-store.ts";
import { PushDispatcher } from "./push-dispatcher.ts";

interface A2ACase {
  name: string;
  /** Default: POST /a2a with `raw` or the JSON of `rpc`. */
  method?: string;
  path?: string;
  rpc?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  /** The HTTP status (JSON-RPC errors are 200). */
  status: number;
  /** The JSON-RPC error code, or the REST error status name. */
  code: number | string;
}

const rpc = (method: string, params: unknown) => ({ jsonrpc: "2.0", id: 1, method, params });
const msg = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  message: { messageId: "m", role: "ROLE_USER", parts, ...extra },
});

const A2A_CASES: A2ACase[] = [
  { name: "malformed JSON", raw: '{"jsonrpc": "2.0", ', status: 200, code: -32700 },
  { name: "a batch", rpc: [rpc("GetTask", { id: "x" })], status: 200, code: -32600 },
  {
    name: "not JSON-RPC 2.0",
    rpc: { jsonrpc: "aaa", id: 1, method: "GetTask", params: {} },
    status: 200,
    code: -32600,
  },
  // The JSON-RPC compliance checks of the A2A TCK (a2aproject/a2a-tck, tests/mandatory/jsonrpc).
  { name: "no method", rpc: { jsonrpc: "2.0", id: 1, params: {} }, status: 200, code: -32600 },
  {
    name: "an id of the wrong type",
    rpc: { jsonrpc: "2.0", method: "SendMessage", params: {}, id: { bad: "type" } },
    status: 200,
    code: -32600,
  },
  {
    name: "params with an empty key",
    rpc: { jsonrpc: "2.0", id: "4", method: "SendMessage", params: { "": "x" } },
    status: 200,
    code: -32602,
  },
  {
    name: "parts not a list (TCK)",
    rpc: rpc("SendMessage", { message: { parts: "invalid" } }),
    status: 200,
    code: -32602,
  },
  { name: "unknown method", rpc: rpc("tasks/explode", {}), status: 200, code: -32601 },
  { name: "v0.3 method name", rpc: rpc("message/send", msg([{ text: "x" }])), status: 200, code: -32601 },
  { name: "params an array", rpc: rpc("GetTask", ["x"]), status: 200, code: -32602 },
  { name: "no message", rpc: rpc("SendMessage", {}), status: 200, code: -32602 },
  { name: "no parts", rpc: rpc("SendMessage", msg([])), status: 200, code: -32602 },
  {
    name: "parts not an array",
    rpc: rpc("SendMessage", msg("text" as unknown as unknown[])),
    status: 200,
    code: -32602,
  },
  { name: "only whitespace", rpc: rpc("SendMessage", msg([{ text: "   " }])), status: 200, code: -32602 },
  {
    name: "a url part (not fetched)",
    rpc: rpc("SendMessage", msg([{ url: "https://x.test/a.pdf" }])),
    status: 200,
    code: -32005,
  },
  {
    name: "an image part over maxPartBytes",
    rpc: rpc(
      "SendMessage",
      msg([{ text: "x" }, { raw: Buffer.alloc(4 * 1024 * 1024 + 1).toString("base64"), mediaType: "image/png" }]),
    ),
    status: 200,
    code: -32602,
  },
  {
    name: "a body over maxContentBodyBytes",
    raw: `{"x":"${"a".repeat(8 * 1024 * 1024 + 1)}"}`,
    status: 200,
    code: -32602,
  },
  {
    name: "a raw part without a media type",
    rpc: rpc("SendMessage", msg([{ raw: "AAAA" }])),
    status: 200,
    code: -32005,
  },
  { name: "a part of no kind", rpc: rpc("SendMessage", msg([{ mediaType: "text/plain" }])), status: 200, code: -32005 },
  {
    name: "a data part that is no decision",
    rpc: rpc("SendMessage", msg([{ data: { hello: 1 } }])),
    status: 200,
    code: -32602,
  },
  {
    name: "a decision without a task",
    rpc: rpc("SendMessage", msg([{ data: { callId: "c", decision: "approve", digest: "0".repeat(64) } }])),
    status: 200,
    code: -32602,
  },
  {
    name: "oversized text part",
    rpc: rpc("SendMessage", msg([{ text: "x".repeat(40_000) }])),
    status: 200,
    code: -32602,
  },
  {
    name: "unknown task",
    rpc: rpc("GetTask", { id: "0190aaaa-0000-7000-8000-000000000000" }),
    status: 200,
    code: -32001,
  },
  { name: "traversal id", rpc: rpc("GetTask", { id: "../../etc/passwd" }), status: 200, code: -32001 },
  { name: "empty id", rpc: rpc("GetTask", { id: "" }), status: 200, code: -32602 },
  { name: "negative historyLength", rpc: rpc("GetTask", { id: "x", historyLength: -1 }), status: 200, code: -32602 },
  { name: "huge pageSize", rpc: rpc("ListTasks", { pageSize: 1000 }), status: 200, code: -32602 },
  {
    name: "steer of an unknown task",
    rpc: rpc("SendMessage", msg([{ text: "x" }], { taskId: "nope" })),
    status: 200,
    code: -32001,
  },
  { name: "cancel of an unknown task", rpc: rpc("CancelTask", { id: "nope" }), status: 200, code: -32001 },
  {
    name: "push config to a private address",
    rpc: rpc("CreateTaskPushNotificationConfig", { taskId: "nope", url: "http://10.0.0.1/" }),
    status: 200,
    code: -32001,
  },
  { name: "no extended card", rpc: rpc("GetExtendedAgentCard", {}), status: 200, code: -32007 },
  {
    name: "wrong content type",
    raw: JSON.stringify(rpc("GetTask", { id: "x" })),
    headers: { "content-type": "text/plain" },
    status: 200,
    code: -32005,
  },
  {
    name: "REST: malformed JSON",
    path: "/a2a/v1/message:send",
    raw: '{"message": ',
    status: 400,
    code: "INVALID_ARGUMENT",
  },
  { name: "REST: no parts", path: "/a2a/v1/message:send", rpc: msg([]), status: 400, code: "INVALID_ARGUMENT" },
  { name: "REST: unknown task", method: "GET", path: "/a2a/v1/tasks/nope", status: 404, code: "NOT_FOUND" },
  {
    name: "REST: bad historyLength",
    method: "GET",
    path: "/a2a/v1/tasks/nope?historyLength=-3",
    status: 400,
    code: "INVALID_ARGUMENT",
  },
  { name: "REST: unknown route", method: "GET", path: "/a2a/v1/explode", status: 400, code: "FAILED_PRECONDITION" },
  {
    name: "REST: wrong method",
    method: "DELETE",
    path: "/a2a/v1/message:send",
    status: 400,
    code: "FAILED_PRECONDITION",
  },
  // Webhooks judged by address, not spelling; header-splitting schemes; names capped as on /v1.
  ...[
    "http://[::ffff:7f00:1]/",
    "http://[::ffff:127.0.0.1]:8080/",
    "http://[::ffff:a9fe:a9fe]/",
    "http://[64:ff9b::a00:1]/",
  ].map(
    (url): A2ACase => ({
      name: `push config to ${url}`,
      rpc: rpc("CreateTaskPushNotificationConfig", { taskId: "{id}", url }),
      status: 200,
      code: -32602,
    }),
  ),
  {
    name: "a first message whose webhook is loopback (no task made)",
    rpc: rpc("SendMessage", {
      ...msg([{ text: "x" }]),
      configuration: { taskPushNotificationConfig: { url: "http://[::ffff:7f00:1]/" } },
    }),
    status: 200,
    code: -32602,
  },
  {
    name: "a CRLF Authorization scheme",
    rpc: rpc("CreateTaskPushNotificationConfig", {
      taskId: "{id}",
      url: "http://203.0.113.9/",
      authentication: { scheme: "Bearer\r\nX-Injected: 1", credentials: "x" },
    }),
    status: 200,
    code: -32602,
  },
  {
    name: "a file part with a 100,000-character name",
    rpc: rpc(
      "SendMessage",
      msg([{ text: "x" }, { raw: "aGk=", mediaType: "text/plain", filename: "n".repeat(100_000) }]),
    ),
    status: 200,
    code: -32602,
  },
  {
    name: "REST: malformed percent-encoding",
    method: "GET",
    path: "/a2a/v1/tasks/%E0%A4%A",
    status: 400,
    code: "INVALID_ARGUMENT",
  },
  {
    name: "unknown agent",
    path: "/a2a/agents/nobody",
    rpc: rpc("GetTask", { id: "x" }),
    status: 404,
    code: "NotFound",
  },
];

describe("the bad-input corpus, over A2A", () => {
  it("answers every case with a typed A2A error, never a 5xx nor a stack, and stores nothing", async () => {
    // Push is on, with a resolver that refuses every name: the cases' webhooks are literals, and
    // nothing here may look a name up or leave the machine.
    const store = new MemoryStore();
    const configs = new MemoryPushConfigStore();
    const push = new PushDispatcher({
      store,
      configs,
      urls: {
        resolve: async (host) => {
          throw new Error(`no lookups in this test (${host})`);
        },
      },
    });
    const fx = await apiFixture({ turns: APPROVAL_SCRIPT, store, app: { protocols: allProtocols({ a2a: { push } }) } });
    const taskId = await createTask(fx);
    await runOnce(fx, taskId);
    const before = await fx.store.read(taskId);
    const tasksBefore = (await fx.store.listTasks({ principal: "acme" })).tasks.length;
    for (const c of A2A_CASES) {
      const response = await fx.call(c.method ?? "POST", c.path ?? "/a2a", {
        ...(c.raw === undefined ? {} : { raw: c.raw, headers: { "content-type": "application/json", ...c.headers } }),
        ...(c.rpc === undefined ? {} : { body: JSON.parse(JSON.stringify(c.rpc).replaceAll("{id}", taskId)) }),
      });
      expect(response.status, c.name).toBe(c.status);
      const text = await response.text();
      expect(text, c.name).not.toMatch(/\n\s+at |node_modules|\.ts:\d/);
      const body = JSON.parse(text) as { error?: { code?: number | string; status?: string } };
      const code = typeof c.code === "number" ? body.error?.code : (body.error?.status ?? body.error?.code);
      expect(code, `${c.name}: ${text}`).toBe(c.code);
    }
    // A JSON-RPC error echoes the request's id, string or number.
    for (const id of ["3", 3]) {
      const response = await fx.call("POST", "/a2a", {
        body: { jsonrpc: "2.0", id, method: "SendMessageXXX", params: {} },
      });
      expect(await response.json()).toMatchObject({ id, error: { code: -32601 } });
    }
    // Without a token: 401, with A2A's bearer challenge.
    const anonymous = await fx.call("POST", "/a2a", { token: null, body: rpc("GetTask", { id: "x" }) });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await fx.store.read(taskId)).toEqual(before);
    expect((await fx.store.listTasks({ principal: "acme" })).tasks.length).toBe(tasksBefore);
    expect(await configs.list(taskId)).toEqual([]);
  });
});
