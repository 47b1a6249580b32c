/**
 * The bad-input corpus: malformed JSON, wrong types, huge bodies, unknown fields, invalid UTF-8,
 * header injection in the speaker name, path traversal in ids, bad credentials. Every case is a
 * typed 4xx, the server stays healthy, and nothing is stored.
 */
import { describe, expect, it, vi } from "vitest";
import { parseSpeaker } from "./ingress/speaker.ts";
import { listen } from "./node/listen.ts";
import { APPROVAL_SCRIPT, apiFixture, createTask, json, runOnce } from "./test-support/api-fixture.ts";

interface Case {
  name: string;
  method?: string;
  /** `{id}` is replaced by the task's id. */
  path?: string;
  raw?: string | Uint8Array;
  body?: unknown;
  headers?: Record<string, string>;
  /** `supervisor`: bob's token (acme, approver and supervisor roles); default alice's (no role). */
  token?: "none" | "garbage" | "revoked" | "supervisor";
  status: number;
  code: string;
  /** The `details.path` the error must name. */
  at?: string;
}

const JSON_HEADERS = { "content-type": "application/json" };
const INPUTS = "/v1/tasks/{id}/inputs";
const AG_UI = "/v1/agents/default/ag-ui";
const CHAT = "/v1/chat";
const said = (id: string) => ({ id, role: "user", parts: [{ type: "text", text: "hello" }] });
const chatBody = (id: string, messages: unknown[]) => ({ id, messages, trigger: "submit-message" });
/** The assistant message with the client's approval response to APPROVAL_SCRIPT's call. */
const approvalAnswer = (signature?: string, reason?: string) => ({
  id: "turn-2",
  role: "assistant",
  parts: [
    {
      type: "tool-write_note",
      toolCallId: "call-1",
      state: "approval-responded",
      input: { text: "x" },
      approval: {
        id: "call-1",
        approved: true,
        ...(signature === undefined ? {} : { signature }),
        ...(reason === undefined ? {} : { reason }),
      },
    },
  ],
});
const utf8 = (text: string) => new TextEncoder().encode(text);
const MCP_LIST = { jsonrpc: "2.0", id: 1, method: "tools/list" };
const FORK = "/v1/tasks/{id}/fork";
const IMPORT = "/v1/tasks/import";
const JSONL = { "content-type": "application/jsonl" };

/** The time-travel routes: each refuses a revoked token like every route. */
const TIME_TRAVEL_ROUTES: [string, string][] = [
  ["POST", FORK],
  ["GET", "/v1/tasks/{id}/forks"],
  ["POST", "/v1/tasks/{id}/replay"],
  ["GET", "/v1/tasks/{id}/diff/{id}"],
  ["GET", "/v1/tasks/{id}/export"],
  ["POST", IMPORT],
];

const DATASETS = "/v1/evals/datasets/geo";
const EXPERIMENTS = "/v1/evals/experiments";
const UNKNOWN_EXPERIMENT = "0190aaaa-0000-7000-8000-000000000000";

/** The evaluation routes: each refuses a revoked token like every route. */
const EVAL_ROUTES: [string, string][] = [
  ["POST", DATASETS],
  ["GET", "/v1/evals/datasets"],
  ["GET", DATASETS],
  ["POST", EXPERIMENTS],
  ["POST", `${EXPERIMENTS}/${UNKNOWN_EXPERIMENT}/resume`],
  ["GET", EXPERIMENTS],
  ["GET", `${EXPERIMENTS}/${UNKNOWN_EXPERIMENT}`],
  ["GET", `${EXPERIMENTS}/${UNKNOWN_EXPERIMENT}/compare/${UNKNOWN_EXPERIMENT}`],
];

/** Evaluations: datasets' bodies and names, experiments' scorers, gates and concurrency. Nothing is saved by any. */
const EVAL_CASES: Case[] = [
  {
    name: "dataset: truncated JSON",
    path: DATASETS,
    raw: '{"fromTasks": ',
    headers: JSON_HEADERS,
    status: 400,
    code: "InvalidInput",
    at: "body",
  },
  {
    name: "dataset: text/plain",
    path: DATASETS,
    raw: '{"input":"a"}',
    headers: { "content-type": "text/plain" },
    status: 415,
    code: "UnsupportedMediaType",
  },
  { name: "dataset: no content type", path: DATASETS, raw: '{"input":"a"}', status: 415, code: "UnsupportedMediaType" },
  {
    name: "dataset: latin-1",
    path: DATASETS,
    raw: '{"input":"a"}',
    headers: { "content-type": "application/jsonl; charset=iso-8859-1" },
    status: 415,
    code: "UnsupportedMediaType",
  },
  { name: "dataset: empty", path: DATASETS, raw: "", headers: JSONL, status: 400, code: "InvalidInput", at: "body" },
  {
    name: "dataset: invalid UTF-8",
    path: DATASETS,
    raw: new Uint8Array([...utf8('{"input":"'), 0xff, ...utf8('"}\n')]),
    headers: JSONL,
    status: 400,
    code: "InvalidInput",
    at: "body",
  },
  {
    name: "dataset: a line not JSON",
    path: DATASETS,
    raw: '{"input":"a"}\nhello\n',
    headers: JSONL,
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "dataset: a case without input",
    path: DATASETS,
    raw: '{"expected":"a"}\n',
    headers: JSONL,
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "dataset: an unknown field on a line",
    path: DATASETS,
    raw: '{"input":"a","principal":"globex"}\n',
    headers: JSONL,
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "dataset: two cases of one id",
    path: DATASETS,
    raw: '{"id":"a","input":"a"}\n{"id":"a","input":"b"}\n',
    headers: JSONL,
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "dataset: over maxDatasetBodyBytes",
    path: DATASETS,
    raw: `{"input":"${"x".repeat(8 * 1024 * 1024)}"}`,
    headers: JSONL,
    status: 413,
    code: "PayloadTooLarge",
  },
  {
    name: "dataset: a name of the wrong form",
    path: "/v1/evals/datasets/-geo",
    raw: '{"input":"a"}',
    headers: JSONL,
    status: 400,
    code: "InvalidInput",
    at: "params.name",
  },
  {
    name: "dataset: name traversal",
    path: "/v1/evals/datasets/..%2F..%2Fetc",
    raw: '{"input":"a"}',
    headers: JSONL,
    status: 400,
    code: "InvalidInput",
    at: "params.name",
  },
  {
    name: "dataset: a name too long",
    path: `/v1/evals/datasets/${"a".repeat(129)}`,
    raw: '{"input":"a"}',
    headers: JSONL,
    status: 400,
    code: "InvalidInput",
    at: "params.name",
  },
  {
    name: "dataset: __proto__ on a line",
    path: DATASETS,
    raw: '{"input":"a","metadata":{"__proto__":{"polluted":true}}}\n',
    headers: JSONL,
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "dataset: a line nested 200,000 levels deep",
    path: DATASETS,
    raw: `{"input":"a"}\n{"input":"a","metadata":{"x":${"[".repeat(200_000)}${"]".repeat(200_000)}}}\n`,
    headers: JSONL,
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "dataset: fromTasks empty",
    path: DATASETS,
    body: { fromTasks: [] },
    status: 400,
    code: "InvalidInput",
    at: "body.fromTasks",
  },
  {
    name: "dataset: fromTasks id traversal",
    path: DATASETS,
    body: { fromTasks: ["../x"] },
    status: 400,
    code: "InvalidInput",
    at: "body.fromTasks.0",
  },
  {
    name: "dataset: fromTasks unknown task",
    path: DATASETS,
    body: { fromTasks: [UNKNOWN_EXPERIMENT] },
    status: 404,
    code: "TaskNotFound",
  },
  {
    name: "dataset: unknown field",
    path: DATASETS,
    body: { fromTasks: ["{id}"], principal: "globex" },
    status: 400,
    code: "InvalidInput",
    at: "body.principal",
  },
  {
    name: "dataset: version 0",
    method: "GET",
    path: `${DATASETS}?version=0`,
    status: 400,
    code: "InvalidInput",
    at: "query.version",
  },
  {
    name: "dataset: version a word",
    method: "GET",
    path: `${DATASETS}?version=latest`,
    status: 400,
    code: "InvalidInput",
    at: "query.version",
  },
  { name: "dataset: unknown", method: "GET", path: DATASETS, status: 404, code: "RecordNotFound" },
  {
    name: "experiment: truncated JSON",
    path: EXPERIMENTS,
    raw: '{"dataset": ',
    headers: JSON_HEADERS,
    status: 400,
    code: "InvalidInput",
    at: "body",
  },
  {
    name: "experiment: as JSON Lines",
    path: EXPERIMENTS,
    raw: '{"dataset":"geo"}',
    headers: JSONL,
    status: 415,
    code: "UnsupportedMediaType",
  },
  {
    name: "experiment: over maxBodyBytes",
    path: EXPERIMENTS,
    body: { dataset: "geo", scorers: ["exact-match"], name: "x".repeat(300_000) },
    status: 413,
    code: "PayloadTooLarge",
  },
  {
    name: "experiment: no scorers",
    path: EXPERIMENTS,
    body: { dataset: "geo", scorers: [] },
    status: 400,
    code: "InvalidInput",
    at: "body.scorers",
  },
  {
    name: "experiment: an unknown scorer",
    path: EXPERIMENTS,
    body: { dataset: "geo", scorers: ["exact-match", "vibes"] },
    status: 400,
    code: "InvalidInput",
    at: "body.scorers.1",
  },
  {
    name: "experiment: a limit without a value",
    path: EXPERIMENTS,
    body: { dataset: "geo", scorers: ["turns"] },
    status: 400,
    code: "InvalidInput",
    at: "body.scorers.0",
  },
  {
    name: "experiment: a negative limit",
    path: EXPERIMENTS,
    body: { dataset: "geo", scorers: ["tokens=-5"] },
    status: 400,
    code: "InvalidInput",
    at: "body.scorers.0",
  },
  {
    name: "experiment: cost= without prices",
    path: EXPERIMENTS,
    body: { dataset: "geo", scorers: ["cost=0.05"] },
    status: 400,
    code: "InvalidInput",
    at: "body.scorers.0",
  },
  {
    name: "experiment: a bad gate",
    path: EXPERIMENTS,
    body: { dataset: "geo", scorers: ["exact-match"], gates: ["exact-match is great"] },
    status: 400,
    code: "InvalidInput",
    at: "body.gates.0",
  },
  {
    name: "experiment: a gate on another scorer",
    path: EXPERIMENTS,
    body: { dataset: "geo", scorers: ["exact-match"], gates: ["turns <= 3"] },
    status: 400,
    code: "InvalidInput",
    at: "body.gates.0",
  },
  {
    name: "experiment: concurrency 0",
    path: EXPERIMENTS,
    body: { dataset: "geo", scorers: ["exact-match"], concurrency: 0 },
    status: 400,
    code: "InvalidInput",
    at: "body.concurrency",
  },
  {
    name: "experiment: concurrency huge",
    path: EXPERIMENTS,
    body: { dataset: "geo", scorers: ["exact-match"], concurrency: 1e9 },
    status: 400,
    code: "InvalidInput",
    at: "body.concurrency",
  },
  {
    name: "experiment: concurrency over maxExperimentConcurrency",
    path: EXPERIMENTS,
    body: { dataset: "geo", scorers: ["exact-match"], concurrency: 9 },
    status: 400,
    code: "InvalidInput",
    at: "body.concurrency",
  },
  {
    name: "experiment: concurrency a string",
    path: EXPERIMENTS,
    body: { dataset: "geo", scorers: ["exact-match"], concurrency: "4" },
    status: 400,
    code: "InvalidInput",
    at: "body.concurrency",
  },
  {
    name: "experiment: principal in body",
    path: EXPERIMENTS,
    body: { dataset: "geo", scorers: ["exact-match"], principal: "globex" },
    status: 400,
    code: "InvalidInput",
    at: "body.principal",
  },
  {
    name: "experiment: a dataset name of the wrong form",
    path: EXPERIMENTS,
    body: { dataset: "../geo", scorers: ["exact-match"] },
    status: 400,
    code: "InvalidInput",
    at: "body.dataset",
  },
  {
    name: "experiment: an agent name of the wrong form",
    path: EXPERIMENTS,
    body: { dataset: "geo", agent: "a b", scorers: ["exact-match"] },
    status: 400,
    code: "InvalidInput",
    at: "body.agent",
  },
  {
    name: "experiment: an agent not served",
    path: EXPERIMENTS,
    body: { dataset: "geo", agent: "nobody", scorers: ["exact-match"] },
    status: 409,
    code: "UnknownAgent",
  },
  {
    name: "experiment: an unknown dataset",
    path: EXPERIMENTS,
    body: { dataset: "geo", scorers: ["exact-match"] },
    status: 404,
    code: "RecordNotFound",
  },
  {
    name: "resume: an unknown experiment",
    path: `${EXPERIMENTS}/${UNKNOWN_EXPERIMENT}/resume`,
    body: { scorers: ["exact-match"] },
    status: 404,
    code: "RecordNotFound",
  },
  {
    name: "resume: id traversal",
    path: `${EXPERIMENTS}/..%2Fx/resume`,
    body: { scorers: ["exact-match"] },
    status: 400,
    code: "InvalidInput",
    at: "params.experimentId",
  },
  {
    name: "resume: unknown field",
    path: `${EXPERIMENTS}/${UNKNOWN_EXPERIMENT}/resume`,
    body: { scorers: ["exact-match"], dataset: "other" },
    status: 400,
    code: "InvalidInput",
    at: "body.dataset",
  },
  {
    name: "experiment: unknown query",
    method: "GET",
    path: `${EXPERIMENTS}/${UNKNOWN_EXPERIMENT}?format=csv`,
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "compare: other id traversal",
    method: "GET",
    path: `${EXPERIMENTS}/${UNKNOWN_EXPERIMENT}/compare/..%2Fx`,
    status: 400,
    code: "InvalidInput",
    at: "params.otherExperimentId",
  },
  ...EVAL_ROUTES.map(
    ([method, path]): Case => ({
      name: `revoked token: ${method} ${path}`,
      method,
      path,
      token: "revoked",
      ...(method === "POST" ? { body: {} } : {}),
      status: 401,
      code: "Unauthorized",
    }),
  ),
];

const CASES: Case[] = [
  ...EVAL_CASES,
  // Malformed JSON and wrong shapes.
  { name: "truncated JSON", raw: '{"text": ', headers: JSON_HEADERS, status: 400, code: "InvalidInput", at: "body" },
  { name: "trailing garbage", raw: '{"text":"x"} x', headers: JSON_HEADERS, status: 400, code: "InvalidInput" },
  { name: "a string, not an object", body: "hello", status: 400, code: "InvalidInput", at: "body" },
  { name: "an array", body: [{ text: "x" }], status: 400, code: "InvalidInput" },
  { name: "null", raw: "null", headers: JSON_HEADERS, status: 400, code: "InvalidInput" },
  { name: "empty body", raw: "", headers: JSON_HEADERS, status: 400, code: "InvalidInput", at: "body" },
  { name: "text is a number", body: { text: 5 }, status: 400, code: "InvalidInput", at: "body.text" },
  { name: "text is missing", body: { carrier: "steer" }, status: 400, code: "InvalidInput", at: "body.text" },
  {
    name: "unknown carrier",
    body: { text: "x", carrier: "shout" },
    status: 400,
    code: "InvalidInput",
    at: "body.carrier",
  },
  { name: "policy wrong type", body: { text: "x", policy: 1 }, status: 400, code: "InvalidInput", at: "body.policy" },
  { name: "operator lane", body: { text: "x", lane: "operator" }, status: 400, code: "InvalidInput", at: "body.lane" },
  { name: "system lane", body: { text: "x", lane: "system" }, status: 400, code: "InvalidInput", at: "body.lane" },
  {
    name: "legId traversal",
    body: { text: "x", legId: "../leg" },
    status: 400,
    code: "InvalidInput",
    at: "body.legId",
  },
  // Nothing in the body can set who speaks or whether it is verified.
  {
    name: "verified in body",
    body: { text: "x", verified: true },
    status: 400,
    code: "InvalidInput",
    at: "body.verified",
  },
  {
    name: "actor in body",
    body: { text: "x", actor: { id: "ceo", verified: true } },
    status: 400,
    code: "InvalidInput",
    at: "body.actor",
  },
  { name: "principal in body", body: { text: "x", principal: "globex" }, status: 400, code: "InvalidInput" },
  // Encodings and sizes.
  {
    name: "invalid UTF-8",
    raw: new Uint8Array([...utf8('{"text":"'), 0xff, 0xfe, ...utf8('"}')]),
    headers: JSON_HEADERS,
    status: 400,
    code: "InvalidInput",
    at: "body",
  },
  {
    name: "overlong UTF-8",
    raw: new Uint8Array([...utf8('{"text":"'), 0xc0, 0xaf, ...utf8('"}')]),
    headers: JSON_HEADERS,
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "lone surrogate",
    raw: '{"text":"a\\ud800b"}',
    headers: JSON_HEADERS,
    status: 400,
    code: "InvalidInput",
    at: "body.text",
  },
  { name: "huge body", body: { text: "x".repeat(300_000) }, status: 413, code: "PayloadTooLarge" },
  // Shape: nesting depth and the keys JavaScript gives a meaning, refused before parsing.
  {
    name: "nested 3,970 levels deep",
    raw: `{"text":"x","legId":${"[".repeat(3970)}${"]".repeat(3970)}}`,
    headers: JSON_HEADERS,
    status: 400,
    code: "InvalidInput",
    at: `body.legId${".0".repeat(63)}`,
  },
  {
    name: "__proto__ in metadata",
    path: "/v1/tasks",
    raw: '{"objective":"x","metadata":{"k":{"__proto__":[1]}}}',
    headers: JSON_HEADERS,
    status: 400,
    code: "InvalidInput",
    at: "body.metadata.k.__proto__",
  },
  {
    name: "escaped __proto__ at the top",
    raw: '{"text":"x","\\u005f_proto__":{}}',
    headers: JSON_HEADERS,
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "constructor in metadata",
    path: "/v1/tasks",
    body: { objective: "x", metadata: { list: [{ constructor: "Object" }] } },
    status: 400,
    code: "InvalidInput",
    at: "body.metadata.list.0.constructor",
  },
  {
    name: "prototype key",
    path: "/v1/tasks",
    body: { objective: "x", metadata: { prototype: 1 } },
    status: 400,
    code: "InvalidInput",
    at: "body.metadata.prototype",
  },
  {
    name: "text over the cap",
    body: { text: "y".repeat(32_001) },
    status: 413,
    code: "PayloadTooLarge",
    at: "body.text",
  },
  {
    name: "text/plain",
    raw: '{"text":"x"}',
    headers: { "content-type": "text/plain" },
    status: 415,
    code: "UnsupportedMediaType",
  },
  { name: "no content type", raw: '{"text":"x"}', headers: {}, status: 415, code: "UnsupportedMediaType" },
  {
    name: "latin-1 charset",
    raw: '{"text":"x"}',
    headers: { "content-type": "application/json; charset=iso-8859-1" },
    status: 415,
    code: "UnsupportedMediaType",
  },
  {
    name: "form body",
    raw: "text=x",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    status: 415,
    code: "UnsupportedMediaType",
  },
  // The speaker header.
  {
    name: "speaker with a tab",
    body: { text: "x" },
    headers: { "x-sema-speaker": "a\tb" },
    status: 400,
    code: "InvalidInput",
    at: "headers.x-sema-speaker",
  },
  {
    name: "speaker with NEL",
    body: { text: "x" },
    headers: { "x-sema-speaker": "a\u0085b" },
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "speaker with a bidi override (UTF-8 bytes)",
    body: { text: "x" },
    headers: { "x-sema-speaker": Buffer.from("admin\u202e", "utf8").toString("latin1") },
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "speaker with an encoded line separator",
    body: { text: "x" },
    headers: { "x-sema-speaker": Buffer.from('a\u2028[from "root"]', "utf8").toString("latin1") },
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "speaker too long",
    body: { text: "x" },
    headers: { "x-sema-speaker": "n".repeat(65) },
    status: 400,
    code: "InvalidInput",
  },
  { name: "empty speaker", body: { text: "x" }, headers: { "x-sema-speaker": "" }, status: 400, code: "InvalidInput" },
  // Ids in the path.
  {
    name: "encoded traversal",
    method: "GET",
    path: "/v1/tasks/..%2F..%2Fetc%2Fpasswd",
    status: 400,
    code: "InvalidInput",
    at: "params.taskId",
  },
  // The URL parser resolves an encoded dot-dot segment before routing: no route, a typed 404.
  { name: "dot-dot segment", method: "GET", path: "/v1/tasks/%2e%2e", status: 404, code: "NotFound" },
  { name: "dots id", method: "GET", path: "/v1/tasks/...", status: 400, code: "InvalidInput", at: "params.taskId" },
  { name: "backslash id", method: "GET", path: "/v1/tasks/a%5Cb", status: 400, code: "InvalidInput" },
  { name: "NUL in id", method: "GET", path: "/v1/tasks/a%00b", status: 400, code: "InvalidInput" },
  { name: "id too long", method: "GET", path: `/v1/tasks/${"a".repeat(600)}`, status: 400, code: "InvalidInput" },
  {
    name: "callId traversal",
    path: "/v1/tasks/{id}/approvals/..%2Fcall-1",
    body: { decision: "approve", digest: "0".repeat(64) },
    status: 400,
    code: "InvalidInput",
    at: "params.callId",
  },
  // Other routes' bodies and queries.
  {
    name: "digest not hex",
    path: "/v1/tasks/{id}/approvals/call-1",
    body: { decision: "approve", digest: "abc" },
    status: 400,
    code: "InvalidInput",
    at: "body.digest",
  },
  {
    name: "decision maybe",
    path: "/v1/tasks/{id}/approvals/call-1",
    body: { decision: "maybe", digest: "0".repeat(64) },
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "objective wrong type",
    path: "/v1/tasks",
    body: { objective: ["x"] },
    status: 400,
    code: "InvalidInput",
    at: "body.objective",
  },
  {
    name: "metadata not an object",
    path: "/v1/tasks",
    body: { objective: "x", metadata: "m" },
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "agent name injection",
    path: "/v1/tasks",
    body: { objective: "x", agent: "../x" },
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "interrupt with a body",
    path: "/v1/tasks/{id}/interrupt",
    body: { force: true },
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "bad Last-Event-ID",
    method: "GET",
    path: "/v1/tasks/{id}/events",
    headers: { "last-event-id": "abc" },
    status: 400,
    code: "InvalidInput",
  },
  { name: "negative after", method: "GET", path: "/v1/tasks/{id}/events?after=-1", status: 400, code: "InvalidInput" },
  { name: "unknown query", method: "GET", path: "/v1/tasks/{id}/events?format=xml", status: 400, code: "InvalidInput" },
  // Task list filters and the list stream's.
  { name: "empty search", method: "GET", path: "/v1/tasks?q=", status: 400, code: "InvalidInput", at: "query.q" },
  {
    name: "search too long",
    method: "GET",
    path: `/v1/tasks?q=${"x".repeat(201)}`,
    status: 400,
    code: "InvalidInput",
    at: "query.q",
  },
  { name: "agent traversal", method: "GET", path: "/v1/tasks?agent=..%2Fx", status: 400, code: "InvalidInput" },
  {
    name: "roots with a parent",
    method: "GET",
    path: "/v1/tasks?roots=true&parentTaskId=abc",
    status: 400,
    code: "InvalidInput",
    at: "query.roots",
  },
  { name: "parent traversal", method: "GET", path: "/v1/tasks?parentTaskId=..%2Fx", status: 400, code: "InvalidInput" },
  { name: "stream bad roots", method: "GET", path: "/v1/tasks/stream?roots=1", status: 400, code: "InvalidInput" },
  { name: "stream unknown query", method: "GET", path: "/v1/tasks/stream?q=x", status: 400, code: "InvalidInput" },
  { name: "agent name traversal", method: "GET", path: "/v1/agents/..%2Fx", status: 400, code: "InvalidInput" },
  {
    name: "agent name too long",
    method: "GET",
    path: `/v1/agents/${"a".repeat(65)}`,
    status: 400,
    code: "InvalidInput",
  },
  { name: "inbox bad cursor", method: "GET", path: "/v1/approvals?cursor=%00", status: 400, code: "InvalidInput" },
  { name: "inbox limit too large", method: "GET", path: "/v1/approvals?limit=999", status: 400, code: "InvalidInput" },
  // AG-UI runs: the protocol's schema, ids, frontend tools, content and resume entries.
  {
    name: "ag-ui without threadId",
    path: AG_UI,
    body: { runId: "r", messages: [] },
    status: 400,
    code: "InvalidInput",
    at: "body.threadId",
  },
  {
    name: "ag-ui threadId traversal",
    path: AG_UI,
    body: { threadId: "../etc", runId: "r", messages: [{ id: "m1", role: "user", content: "hi" }] },
    status: 400,
    code: "InvalidInput",
    at: "body.threadId",
  },
  {
    name: "ag-ui messages not a list",
    path: AG_UI,
    body: { threadId: "t-new", runId: "r", messages: "hi" },
    status: 400,
    code: "InvalidInput",
    at: "body.messages",
  },
  {
    name: "ag-ui unknown role",
    path: AG_UI,
    body: { threadId: "t-new", runId: "r", messages: [{ id: "m1", role: "root", content: "hi" }] },
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "ag-ui new thread without a user message",
    path: AG_UI,
    body: { threadId: "t-new", runId: "r", messages: [] },
    status: 400,
    code: "InvalidInput",
    at: "body.messages",
  },
  {
    name: "ag-ui frontend tool named like the agent's",
    path: AG_UI,
    body: {
      threadId: "t-new",
      runId: "r",
      messages: [{ id: "m1", role: "user", content: "hi" }],
      tools: [{ name: "write_note", description: "x" }],
    },
    status: 400,
    code: "InvalidInput",
    at: "body.tools.0.name",
  },
  {
    name: "ag-ui image part",
    path: AG_UI,
    body: {
      threadId: "t-new",
      runId: "r",
      messages: [
        {
          id: "m1",
          role: "user",
          content: [{ type: "image", source: { type: "url", value: "https://example.com/a.png" } }],
        },
      ],
    },
    status: 400,
    code: "InvalidInput",
    at: "body.messages.0.content.0",
  },
  {
    name: "ag-ui text over the cap",
    path: AG_UI,
    body: { threadId: "t-new", runId: "r", messages: [{ id: "m1", role: "user", content: "y".repeat(32_001) }] },
    status: 413,
    code: "PayloadTooLarge",
    at: "body.messages.0.content",
  },
  {
    name: "ag-ui resume without a digest",
    path: AG_UI,
    body: {
      threadId: "{id}",
      runId: "r",
      messages: [],
      resume: [{ interruptId: "call-1", status: "resolved", payload: { approved: true } }],
    },
    status: 400,
    code: "InvalidInput",
    at: "body.resume.0.payload.digest",
  },
  {
    name: "ag-ui resume with a wrong digest",
    path: AG_UI,
    body: {
      threadId: "{id}",
      runId: "r",
      messages: [],
      resume: [{ interruptId: "call-1", status: "resolved", payload: { approved: true, digest: "0".repeat(64) } }],
    },
    status: 409,
    code: "DigestMismatch",
  },
  {
    name: "ag-ui message over the cap with a decision and a tool: nothing of it recorded",
    path: AG_UI,
    body: {
      threadId: "{id}",
      runId: "r",
      messages: [{ id: "m2", role: "user", content: "y".repeat(32_001) }],
      tools: [{ name: "pick_color", description: "x" }],
      resume: [{ interruptId: "call-1", status: "cancelled" }],
    },
    status: 413,
    code: "PayloadTooLarge",
    at: "body.messages.0.content",
  },
  {
    name: "ag-ui unknown agent",
    path: "/v1/agents/nobody/ag-ui",
    body: { threadId: "t-new", runId: "r", messages: [{ id: "m1", role: "user", content: "hi" }] },
    status: 404,
    code: "NotFound",
  },
  // Model settings a caller sends: provider options pass only where the agent allows each key.
  ...["model", "n", "max_tokens", "service_tier", "store", "user", "metadata"].map(
    (key): Case => ({
      name: `caller provider option ${key}`,
      path: "/v1/tasks",
      body: { objective: "x", settings: { providerOptions: { "openai-compatible": { [key]: 1 } } } },
      status: 400,
      code: "InvalidInput",
      at: `body.settings.providerOptions.openai-compatible.${key}`,
    }),
  ),
  // Forks: the body's shape, then what the edits may say (core's refusals last).
  {
    name: "fork: atSeq a string",
    path: FORK,
    body: { atSeq: "3" },
    status: 400,
    code: "InvalidInput",
    at: "body.atSeq",
  },
  { name: "fork: atSeq 0", path: FORK, body: { atSeq: 0 }, status: 400, code: "InvalidInput", at: "body.atSeq" },
  { name: "fork: atSeq past the log", path: FORK, body: { atSeq: 999 }, status: 400, code: "InvalidInput" },
  {
    name: "fork: an unknown edit",
    path: FORK,
    body: { edits: { prompt: "x" } },
    status: 400,
    code: "InvalidInput",
    at: "body.edits.prompt",
  },
  {
    name: "fork: actor in body",
    path: FORK,
    body: { actor: { id: "ceo", verified: true } },
    status: 400,
    code: "InvalidInput",
    at: "body.actor",
  },
  { name: "fork: principal in body", path: FORK, body: { principal: "globex" }, status: 400, code: "InvalidInput" },
  {
    name: "fork: another model",
    path: FORK,
    body: { edits: { model: "openai:gpt-5" } },
    status: 400,
    code: "InvalidInput",
    at: "body.edits.model",
  },
  {
    name: "fork: a provider option the agent does not allow",
    path: FORK,
    body: { edits: { settings: { providerOptions: { "openai-compatible": { n: 4 } } } } },
    status: 400,
    code: "InvalidInput",
    at: "body.edits.settings.providerOptions.openai-compatible.n",
  },
  {
    name: "fork: an output schema",
    path: FORK,
    body: { edits: { settings: { output: { type: "object" } } } },
    status: 400,
    code: "InvalidInput",
    at: "body.edits.settings.output",
  },
  {
    name: "fork: temperature a string",
    path: FORK,
    body: { edits: { settings: { temperature: "hot" } } },
    status: 400,
    code: "InvalidInput",
    at: "body.edits.settings.temperature",
  },
  {
    name: "fork: an input and a tool result",
    path: FORK,
    body: { edits: { input: { seq: 2, text: "x" }, toolResult: { callId: "call-1", content: "x" } } },
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "fork: empty input text",
    path: FORK,
    body: { edits: { input: { seq: 2, text: "" } } },
    status: 400,
    code: "InvalidInput",
    at: "body.edits.input.text",
  },
  {
    name: "fork: input text over the cap",
    path: FORK,
    body: { edits: { input: { seq: 2, text: "y".repeat(32_001) } } },
    status: 413,
    code: "PayloadTooLarge",
    at: "body.edits.input.text",
  },
  {
    name: "fork: a seq that is not an input",
    path: FORK,
    body: { edits: { input: { seq: 3, text: "x" } } },
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "fork: a call with no recorded result",
    path: FORK,
    body: { edits: { toolResult: { callId: "call-1", content: "x" } } },
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "fork: callId traversal",
    path: FORK,
    body: { edits: { toolResult: { callId: "../call-1", content: "x" } } },
    status: 400,
    code: "InvalidInput",
    at: "body.edits.toolResult.callId",
  },
  {
    name: "fork: tool result status denied",
    path: FORK,
    body: { edits: { toolResult: { callId: "call-1", content: "x", status: "denied" } } },
    status: 400,
    code: "InvalidInput",
    at: "body.edits.toolResult.status",
  },
  // The other time-travel routes' params, queries and bodies.
  {
    name: "forks: bad cursor",
    method: "GET",
    path: "/v1/tasks/{id}/forks?cursor=garbage",
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "forks: limit 0",
    method: "GET",
    path: "/v1/tasks/{id}/forks?limit=0",
    status: 400,
    code: "InvalidInput",
    at: "query.limit",
  },
  {
    name: "forks: id traversal",
    method: "GET",
    path: "/v1/tasks/..%2Fx/forks",
    status: 400,
    code: "InvalidInput",
    at: "params.taskId",
  },
  {
    name: "replay with a body",
    path: "/v1/tasks/{id}/replay",
    body: { agent: "other" },
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "diff: other id traversal",
    method: "GET",
    path: "/v1/tasks/{id}/diff/..%2F..%2Fetc",
    status: 400,
    code: "InvalidInput",
    at: "params.otherTaskId",
  },
  {
    name: "export: withChildren yes",
    method: "GET",
    path: "/v1/tasks/{id}/export?withChildren=yes",
    status: 400,
    code: "InvalidInput",
    at: "query.withChildren",
  },
  {
    name: "export: unknown query",
    method: "GET",
    path: "/v1/tasks/{id}/export?format=csv",
    status: 400,
    code: "InvalidInput",
  },
  // Imports: the role first, then the body's type, size and encoding, then every line of the file.
  { name: "import: no supervisor role", path: IMPORT, raw: "x", headers: JSONL, status: 403, code: "Forbidden" },
  {
    name: "import: as JSON",
    path: IMPORT,
    token: "supervisor",
    body: { kind: "header" },
    status: 415,
    code: "UnsupportedMediaType",
  },
  {
    name: "import: text/plain",
    path: IMPORT,
    token: "supervisor",
    raw: "x",
    headers: { "content-type": "text/plain" },
    status: 415,
    code: "UnsupportedMediaType",
  },
  {
    name: "import: latin-1",
    path: IMPORT,
    token: "supervisor",
    raw: "x",
    headers: { "content-type": "application/jsonl; charset=iso-8859-1" },
    status: 415,
    code: "UnsupportedMediaType",
  },
  {
    name: "import: empty",
    path: IMPORT,
    token: "supervisor",
    raw: "",
    headers: JSONL,
    status: 400,
    code: "InvalidInput",
    at: "body",
  },
  {
    name: "import: invalid UTF-8",
    path: IMPORT,
    token: "supervisor",
    raw: new Uint8Array([...utf8('{"kind":"'), 0xff, ...utf8('"}\n')]),
    headers: JSONL,
    status: 400,
    code: "InvalidInput",
    at: "body",
  },
  {
    name: "import: not JSON",
    path: IMPORT,
    token: "supervisor",
    raw: "hello\n",
    headers: JSONL,
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "import: a header alone",
    path: IMPORT,
    token: "supervisor",
    raw: `${JSON.stringify({ kind: "header", format: "sema-task-export", v: 1, exportedAt: "2026-12-01T00:00:00.000Z", rootTaskId: "t1", blobs: "included" })}\n`,
    headers: JSONL,
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "import: nested 200,000 levels deep",
    path: IMPORT,
    token: "supervisor",
    raw: `{"kind":"header","x":${"[".repeat(200_000)}${"]".repeat(200_000)}}\n`,
    headers: JSONL,
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "import: __proto__ on a line",
    path: IMPORT,
    token: "supervisor",
    raw: '{"kind":"header","__proto__":{"polluted":true}}\n',
    headers: JSONL,
    status: 400,
    code: "InvalidInput",
  },
  ...TIME_TRAVEL_ROUTES.map(
    ([method, path]): Case => ({
      name: `revoked token: ${method} ${path}`,
      method,
      path,
      token: "revoked",
      ...(method === "POST" ? { body: {} } : {}),
      status: 401,
      code: "Unauthorized",
    }),
  ),
  // Credentials and routes.
  { name: "no token", method: "GET", path: "/v1/tasks", token: "none", status: 401, code: "Unauthorized" },
  { name: "garbage token", method: "GET", path: "/v1/tasks", token: "garbage", status: 401, code: "Unauthorized" },
  { name: "revoked token", method: "GET", path: "/v1/tasks", token: "revoked", status: 401, code: "Unauthorized" },
  {
    name: "basic auth",
    method: "GET",
    path: "/v1/tasks",
    token: "none",
    headers: { authorization: "Basic YTpi" },
    status: 401,
    code: "Unauthorized",
  },
  { name: "unknown route", method: "DELETE", path: "/v1/tasks/{id}", status: 404, code: "NotFound" },
  // The AI SDK chat protocol (what DefaultChatTransport posts), on the task as a chat and on new ids.
  { name: "chat: not an object", path: CHAT, body: [1], status: 400, code: "InvalidInput", at: "body" },
  {
    name: "chat: no id",
    path: CHAT,
    body: { messages: [said("m1")], trigger: "submit-message" },
    status: 400,
    code: "InvalidInput",
    at: "body.id",
  },
  {
    name: "chat: id traversal",
    path: CHAT,
    body: chatBody("../x", [said("m1")]),
    status: 400,
    code: "InvalidInput",
    at: "body.id",
  },
  {
    name: "chat: no messages",
    path: CHAT,
    body: chatBody("fresh-1", []),
    status: 400,
    code: "InvalidInput",
    at: "body.messages",
  },
  {
    name: "chat: unknown trigger",
    path: CHAT,
    body: { ...chatBody("fresh-1", [said("m1")]), trigger: "shout" },
    status: 400,
    code: "InvalidInput",
    at: "body.trigger",
  },
  {
    name: "chat: unknown extra",
    path: CHAT,
    body: { ...chatBody("fresh-1", [said("m1")]), principal: "globex" },
    status: 400,
    code: "InvalidInput",
    at: "body.principal",
  },
  {
    name: "chat: regenerate",
    path: CHAT,
    body: { ...chatBody("{id}", [said("m1")]), trigger: "regenerate-message" },
    status: 400,
    code: "InvalidInput",
    at: "body.trigger",
  },
  {
    name: "chat: starts with the assistant",
    path: CHAT,
    body: chatBody("fresh-1", [{ id: "a1", role: "assistant", parts: [{ type: "text", text: "hi" }] }]),
    status: 400,
    code: "InvalidInput",
    at: "body.messages.0.role",
  },
  {
    name: "chat: a file part",
    path: CHAT,
    body: chatBody("fresh-1", [
      { id: "m1", role: "user", parts: [{ type: "file", mediaType: "image/png", url: "data:image/png;base64,AA==" }] },
    ]),
    status: 400,
    code: "InvalidInput",
    at: "body.messages.0",
  },
  {
    name: "chat: empty text",
    path: CHAT,
    body: chatBody("fresh-1", [{ id: "m1", role: "user", parts: [{ type: "text", text: "  " }] }]),
    status: 400,
    code: "InvalidInput",
    at: "body.messages.0.parts",
  },
  {
    name: "chat: message id traversal",
    path: CHAT,
    body: chatBody("{id}", [said("../m")]),
    status: 400,
    code: "InvalidInput",
    at: "body.messages.0.id",
  },
  {
    name: "chat: editing a sent message",
    path: CHAT,
    body: { ...chatBody("{id}", [said("{objective}")]), messageId: "{objective}" },
    status: 400,
    code: "InvalidInput",
    at: "body.messageId",
  },
  {
    name: "chat: approval without its digest",
    path: CHAT,
    body: chatBody("{id}", [approvalAnswer()]),
    status: 400,
    code: "InvalidInput",
    at: "body.messages.0.parts.0.approval",
  },
  {
    name: "chat: approval reason too long",
    path: CHAT,
    body: chatBody("{id}", [approvalAnswer("0".repeat(64), "x".repeat(2001))]),
    status: 413,
    code: "PayloadTooLarge",
    at: "body.messages.0.parts.0.approval.reason",
  },
  {
    name: "chat: approval with a wrong digest",
    path: CHAT,
    body: chatBody("{id}", [approvalAnswer("0".repeat(64))]),
    status: 409,
    code: "DigestMismatch",
  },
  {
    name: "chat: unknown agent",
    path: "/v1/agents/nobody/chat",
    body: chatBody("fresh-1", [said("m1")]),
    status: 404,
    code: "NotFound",
  },
  {
    name: "chat: agent traversal",
    method: "GET",
    path: "/v1/agents/a%2Fb/chat/{id}/messages",
    status: 400,
    code: "InvalidInput",
    at: "params.agent",
  },
  {
    name: "chat: messages of no chat",
    method: "GET",
    path: "/v1/chat/nothing-here/messages",
    status: 404,
    code: "TaskNotFound",
  },
  {
    name: "chat: stream id traversal",
    method: "GET",
    path: "/v1/chat/..%2Fx/stream",
    status: 400,
    code: "InvalidInput",
  },
  // The MCP endpoint: the same ingress and body rules before the SDK's transport sees anything.
  {
    name: "mcp: truncated JSON",
    path: "/mcp",
    raw: '{"jsonrpc":',
    headers: JSON_HEADERS,
    status: 400,
    code: "InvalidInput",
  },
  { name: "mcp: no token", path: "/mcp", body: MCP_LIST, token: "none", status: 401, code: "Unauthorized" },
  { name: "mcp: revoked token", path: "/mcp", body: MCP_LIST, token: "revoked", status: 401, code: "Unauthorized" },
  {
    name: "mcp: not JSON",
    path: "/mcp",
    raw: "tools/list",
    headers: { "content-type": "text/plain" },
    status: 415,
    code: "UnsupportedMediaType",
  },
  {
    name: "mcp: huge body",
    path: "/mcp",
    body: { ...MCP_LIST, params: { pad: "x".repeat(300_000) } },
    status: 413,
    code: "PayloadTooLarge",
  },
  {
    name: "mcp: nested too deep",
    path: "/mcp",
    raw: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":${"[".repeat(100)}${"]".repeat(100)}}`,
    headers: JSON_HEADERS,
    status: 400,
    code: "InvalidInput",
  },
  {
    name: "mcp: unknown session",
    path: "/mcp",
    body: MCP_LIST,
    headers: { "mcp-session-id": "no-such-session" },
    status: 404,
    code: "NotFound",
  },
  { name: "mcp: wrong HTTP method", method: "PUT", path: "/mcp", status: 404, code: "NotFound" },
];

describe("the bad-input corpus", () => {
  it("answers every case with a typed 4xx, stores nothing, and stays healthy", async () => {
    // Two requests a case: more than the default burst, which is not what this test is about.
    const fx = await apiFixture({ turns: APPROVAL_SCRIPT, app: { limits: { rateBurst: 1000 } } });
    const taskId = await createTask(fx);
    await runOnce(fx, taskId);
    const revoked = await fx.tokenStore.create({ principal: "acme", actorId: "old" });
    await fx.tokenStore.revoke(revoked.record.tokenId);
    const before = await fx.store.read(taskId);
    const objective = before.find((event) => event.type === "human_input");
    const objectiveId = objective?.type === "human_input" ? objective.inputId : "";
    const tasksBefore = (await fx.store.listTasks({ principal: "acme" })).tasks.length;

    for (const c of CASES) {
      const token =
        c.token === "none"
          ? null
          : c.token === "garbage"
            ? "sema_nope"
            : c.token === "revoked"
              ? revoked.token
              : c.token === "supervisor"
                ? fx.tokens.bob
                : undefined;
      const body =
        c.body === undefined
          ? undefined
          : JSON.parse(JSON.stringify(c.body).replaceAll("{id}", taskId).replaceAll("{objective}", objectiveId));
      const response = await fx.call(c.method ?? "POST", (c.path ?? INPUTS).replaceAll("{id}", taskId), {
        ...(token === undefined ? {} : { token }),
        ...(c.raw === undefined ? {} : { raw: c.raw }),
        ...(body === undefined ? {} : { body }),
        ...(c.headers === undefined ? {} : { headers: c.headers }),
      });
      expect(response.status, c.name).toBe(c.status);
      expect(response.headers.get("content-type"), c.name).toContain("application/json");
      const error = await json<{ error: { code: string; message: string; details?: { path?: string } } }>(response);
      expect(error.error.code, c.name).toBe(c.code);
      expect(error.error.message.length, c.name).toBeGreaterThan(0);
      if (c.at !== undefined) expect(error.error.details?.path, c.name).toBe(c.at);

      const health = await fx.call("GET", "/v1/tasks");
      expect(health.status, `healthy after ${c.name}`).toBe(200);
    }
    expect(await fx.store.read(taskId)).toEqual(before);
    expect((await fx.store.listTasks({ principal: "acme" })).tasks.length).toBe(tasksBefore);
    // No dataset or experiment was saved by any case.
    for (const kind of ["dataset", "experiment"])
      expect((await fx.store.listRecords?.({ kind, principal: "acme" }))?.records, kind).toEqual([]);
  });

  it("401s carry a Bearer challenge; 429s a Retry-After", async () => {
    const fx = await apiFixture({ app: { limits: { rateBurst: 2, ratePerMinute: 1 } } });
    const unauthorized = await fx.call("GET", "/v1/tasks", { token: null });
    expect(unauthorized.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await fx.call("GET", "/v1/tasks")).status).toBe(200);
    expect((await fx.call("GET", "/v1/tasks")).status).toBe(200);
    const limited = await fx.call("GET", "/v1/tasks");
    expect(limited.status).toBe(429);
    expect(await json(limited)).toMatchObject({ error: { code: "RateLimited" } });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    // Per principal: another principal is not limited by this one.
    expect((await fx.call("GET", "/v1/tasks", { token: fx.tokens.mallory })).status).toBe(200);
  });

  it("refuses CR/LF in a speaker name even where a transport would let it through", () => {
    for (const name of ["a\r\nX-Injected: 1", "a\nb", "a\rb", "\u0000"]) {
      expect(() => parseSpeaker(name), JSON.stringify(name)).toThrow(/control characters/);
    }
    expect(parseSpeaker(" Ana ")).toBe("Ana");
  });

  it("over a real socket: deep nesting and reserved keys on every POST route are typed 400s, nothing on stderr", async () => {
    const fx = await apiFixture({ turns: APPROVAL_SCRIPT });
    const taskId = await createTask(fx);
    await runOnce(fx, taskId);
    const before = await fx.store.read(taskId);
    const stderr = vi.spyOn(console, "error");
    const server = await listen(fx.app, { port: 0 });
    try {
      const post = (path: string, raw: string) =>
        fetch(`${server.url}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${fx.tokens.bob}`, "content-type": "application/json" },
          body: raw,
        });
      const routes = ["/v1/tasks", "inputs", "approvals/call-1", "interrupt", "cancel", "resume", "fork", "replay"].map(
        (route) => (route.startsWith("/") ? route : `/v1/tasks/${taskId}/${route}`),
      );
      const deep = `{"a":${"[".repeat(3970)}${"]".repeat(3970)}}`;
      for (const route of routes) {
        const response = await post(route, deep);
        expect(response.status, route).toBe(400);
        expect(await response.json(), route).toMatchObject({
          error: { code: "InvalidInput", details: { path: `body.a${".0".repeat(63)}`, maxDepth: 64 } },
        });
        const proto = await post(route, '{"objective":"x","text":"x","metadata":{"k":{"__proto__":[1]}}}');
        expect(proto.status, route).toBe(400);
        expect(await proto.json(), route).toMatchObject({
          error: { code: "InvalidInput", details: { path: "body.metadata.k.__proto__", key: "__proto__" } },
        });
      }
      // At the limit it is read and validated as usual.
      const atLimit = await post("/v1/tasks", `{"objective":"x","metadata":{"k":${"[".repeat(62)}${"]".repeat(62)}}}`);
      expect(atLimit.status).toBe(201);
      expect(
        (await fetch(`${server.url}/v1/tasks`, { headers: { authorization: `Bearer ${fx.tokens.bob}` } })).status,
      ).toBe(200);
      expect(stderr).not.toHaveBeenCalled();
      expect(await fx.store.read(taskId)).toEqual(before);
    } finally {
      stderr.mockRestore();
      await server.close();
    }
  });

  it("over a real socket: deciding a call of a cancelled task is a 409 TaskFinished, and nothing is recorded", async () => {
    const fx = await apiFixture({ turns: APPROVAL_SCRIPT });
    const taskId = await createTask(fx);
    await runOnce(fx, taskId);
    const detail = await json<{ pendingApprovals: { digest: string }[] }>(await fx.call("GET", `/v1/tasks/${taskId}`));
    const digest = detail.pendingApprovals[0]?.digest ?? "";
    const server = await listen(fx.app, { port: 0 });
    try {
      const post = (path: string, body: unknown) =>
        fetch(`${server.url}/v1/tasks/${taskId}/${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${fx.tokens.bob}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      expect((await post("cancel", {})).status).toBe(200);
      const before = (await fx.store.getTask(taskId)).lastSeq;
      for (const decision of ["approve", "deny"]) {
        const response = await post("approvals/call-1", { decision, digest });
        expect(response.status, decision).toBe(409);
        expect(await response.json()).toMatchObject({
          error: { code: "TaskFinished", details: { taskId, status: "cancelled" } },
        });
      }
      expect((await fx.store.getTask(taskId)).lastSeq).toBe(before);
    } finally {
      await server.close();
    }
  });
});
