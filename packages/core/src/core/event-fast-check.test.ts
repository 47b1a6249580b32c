import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { legEndReasonSchema, taskEventSchema } from "../protocol/task-event.ts";
import { usageSchema } from "../protocol/usage.ts";
import { FAST_CHECKED_TYPES, isSurelyValidEvent } from "./event-fast-check.ts";
import { validateEvents } from "./event-validation.ts";

const id = fc.string({ minLength: 1, maxLength: 12 });
const anyText = fc.string({ maxLength: 20 });
const count = fc.oneof(fc.nat(), fc.constant(0), fc.constant(Number.MAX_SAFE_INTEGER));
const json = fc.jsonValue({ maxDepth: 3 });

// Usages are generated from the one schema's own keys (those `{}` lacks are required), so the
// fast check, written by hand, is held to every key the schema has: a key it does not know fails.
const usageKeys = Object.keys(usageSchema.shape);
const requiredUsageKeys = (usageSchema.safeParse({}).error?.issues ?? []).map((issue) => String(issue.path[0]));
const usage = fc.record(Object.fromEntries(usageKeys.map((key) => [key, count])), { requiredKeys: requiredUsageKeys });

const modelTurn = fc.record(
  {
    type: fc.constant("model_turn"),
    v: fc.constant(1),
    legId: id,
    sessionSeq: count,
    text: anyText,
    reasoning: anyText,
    toolCalls: fc.array(fc.record({ callId: id, name: id, input: json }), { maxLength: 3 }),
    usage,
    finishReason: fc.constantFrom("stop", "length", "content-filter", "tool-calls", "error", "other"),
    model: anyText,
  },
  { requiredKeys: ["type", "v", "legId", "sessionSeq", "text", "toolCalls", "usage", "finishReason"] },
);

const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
// Version 2, what the harness writes: the request's digests, required there.
const modelTurnV2 = fc.record(
  {
    type: fc.constant("model_turn"),
    v: fc.constant(2),
    legId: id,
    sessionSeq: count,
    text: anyText,
    reasoning: anyText,
    toolCalls: fc.array(fc.record({ callId: id, name: id, input: json }), { maxLength: 3 }),
    usage,
    finishReason: fc.constantFrom("stop", "length", "content-filter", "tool-calls", "error", "other"),
    model: anyText,
    request: fc.record({
      digest: hex64,
      system: hex64,
      tools: hex64,
      settings: hex64,
      transcript: hex64,
      entries: count,
    }),
  },
  { requiredKeys: ["type", "v", "legId", "sessionSeq", "text", "toolCalls", "usage", "finishReason", "request"] },
);

const toolCallStarted = fc.record(
  {
    type: fc.constant("tool_call_started"),
    v: fc.constant(1),
    legId: id,
    callId: id,
    name: id,
    attempt: fc.integer({ min: 1, max: 1000 }),
    input: json,
  },
  { requiredKeys: ["type", "v", "legId", "callId", "name", "attempt"] },
);

const toolResult = fc.record(
  {
    type: fc.constant("tool_result"),
    v: fc.constant(1),
    callId: id,
    name: id,
    status: fc.constantFrom("ok", "error", "denied", "interrupted"),
    content: anyText,
    output: json,
    truncated: fc.constant(true),
    durationMs: count,
    legId: anyText,
  },
  { requiredKeys: ["type", "v", "callId", "name", "status", "content"] },
);

const legStarted = fc.record(
  {
    type: fc.constant("leg_started"),
    v: fc.constant(1),
    legId: id,
    trigger: fc.constantFrom("start", "resume", "wake", "recover"),
    holder: fc.record({ id, host: anyText, pid: count, space: id }, { requiredKeys: ["id"] }),
  },
  { requiredKeys: ["type", "v", "legId", "trigger"] },
);

const legEnded = fc.record(
  {
    type: fc.constant("leg_ended"),
    v: fc.constant(1),
    legId: id,
    reason: fc.constantFrom(...legEndReasonSchema.options),
    detail: anyText,
  },
  { requiredKeys: ["type", "v", "legId", "reason"] },
);

const humanInput = fc.record(
  {
    type: fc.constant("human_input"),
    v: fc.constant(1),
    inputId: id,
    carrier: id,
    source: fc.constantFrom("user", "operator", "supervisor", "external", "system"),
    delivery: fc.constantFrom("received", "parked", "applied", "dropped"),
    sessionSeq: count,
    text: anyText,
    actor: fc.record({ id: anyText, verified: fc.boolean(), issuer: anyText }, { requiredKeys: ["id", "verified"] }),
    issuer: anyText,
    principal: anyText,
    entryId: anyText,
    legId: anyText,
    policy: fc.constantFrom("steer", "queue", "interrupt", "reject"),
    reason: anyText,
  },
  { requiredKeys: ["type", "v", "inputId", "carrier", "source", "delivery", "sessionSeq"] },
);

const userMessage = fc.record({
  type: fc.constant("user_message"),
  v: fc.constant(1),
  entryId: id,
  content: anyText,
  inputIds: fc.array(id, { maxLength: 3 }),
});

const taskCreated = fc.record(
  {
    type: fc.constant("task_created"),
    v: fc.constant(1),
    objective: anyText,
    principal: id,
    agent: id,
    model: id,
    parentTaskId: id,
    actor: fc.record({ id: anyText, verified: fc.boolean(), issuer: anyText }, { requiredKeys: ["id", "verified"] }),
  },
  { requiredKeys: ["type", "v", "objective", "principal"] },
);

const taskCompleted = fc.record({ type: fc.constant("task_completed"), v: fc.constant(1), result: anyText });

const validEvent = fc.oneof(
  modelTurn,
  modelTurnV2,
  toolCallStarted,
  toolResult,
  legStarted,
  legEnded,
  humanInput,
  userMessage,
  taskCompleted,
  taskCreated,
) as fc.Arbitrary<Record<string, unknown>>;

/** Values near the edges of what the schemas accept, and anything at all. */
const edgeValue = fc.oneof(
  fc.anything({ withNullPrototype: true }),
  fc.integer({ min: -3, max: 3 }),
  fc.double(),
  fc.constantFrom("", " ", 0, -1, 1.5, true, false, null, Number.NaN, 2 ** 53, [], {}),
);

/** One change that may or may not break the event: the fast check must never say yes to a broken one. */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("set" as const), pick: fc.nat(), value: edgeValue }),
  fc.record({ kind: fc.constant("undefined" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("add" as const), key: fc.string(), value: fc.anything() }),
  fc.record({ kind: fc.constant("nested" as const), pick: fc.nat(), value: edgeValue }),
  fc.record({ kind: fc.constant("nullProto" as const) }),
  fc.record({ kind: fc.constant("protoKey" as const) }),
);
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

function mutate(event: Record<string, unknown>, change: Mutation): unknown {
  const copy: Record<string, unknown> = structuredClone(event);
  const keys = Object.keys(copy);
  const key = "pick" in change ? (keys[change.pick % keys.length] as string) : "";
  switch (change.kind) {
    case "delete":
      delete copy[key];
      return copy;
    case "set":
      copy[key] = change.value;
      return copy;
    case "undefined":
      copy[key] = undefined;
      return copy;
    case "add":
      copy[change.key] = change.value;
      return copy;
    case "nested": {
      // Reach into the nested strict objects: usage, the first tool call, a holder, an actor.
      const inner = (copy.request ??
        copy.usage ??
        (copy.toolCalls as unknown[] | undefined)?.[0] ??
        copy.holder ??
        copy.actor ??
        (copy.inputIds as unknown[] | undefined)) as Record<string, unknown> | undefined;
      if (typeof inner !== "object" || inner === null) return copy;
      const innerKeys = Object.keys(inner);
      inner[innerKeys[change.pick % innerKeys.length] as string] = change.value;
      return copy;
    }
    case "nullProto":
      return Object.assign(Object.create(null), copy);
    case "protoKey":
      return JSON.parse(`{"__proto__": {"x": 1}, ${JSON.stringify(copy).slice(1)}`);
  }
}

describe("the fast event check", () => {
  it("covers the events of every model turn", () => {
    expect([...FAST_CHECKED_TYPES].sort()).toEqual([
      "human_input",
      "leg_ended",
      "leg_started",
      "model_turn",
      "task_completed",
      "task_created",
      "tool_call_started",
      "tool_result",
      "user_message",
    ]);
  });

  it("says yes to every valid event of the covered types (so the fast path is really taken)", () => {
    fc.assert(
      fc.property(validEvent, (event) => {
        expect(taskEventSchema.safeParse(event).success).toBe(true);
        expect(isSurelyValidEvent(event)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("never says yes to an event its zod schema refuses", () => {
    fc.assert(
      fc.property(validEvent, fc.array(mutation, { minLength: 1, maxLength: 3 }), (event, changes) => {
        let changed: unknown = event;
        for (const change of changes) changed = mutate(changed as Record<string, unknown>, change);
        if (isSurelyValidEvent(changed)) expect(taskEventSchema.safeParse(changed).success).toBe(true);
      }),
      { numRuns: 10_000 },
    );
  });

  it("generates usages from the schema's keys, the required ones as the schema says", () => {
    expect(usageKeys.length).toBeGreaterThan(requiredUsageKeys.length);
    expect(requiredUsageKeys.length).toBeGreaterThan(0);
    expect(requiredUsageKeys.every((key) => usageKeys.includes(key))).toBe(true);
  });

  it("leaves refusals to zod, with the failing path", () => {
    const broken = { type: "tool_result", v: 1, callId: "c1", name: "t", status: "ok", content: "x", extra: 1 };
    expect(() => validateEvents([broken])).toThrow(expect.objectContaining({ code: "InvalidEvent" }));
    const badUsage = {
      type: "model_turn",
      v: 1,
      legId: "l",
      sessionSeq: 1,
      text: "",
      toolCalls: [],
      usage: { inputTokens: -1, outputTokens: 0 },
      finishReason: "stop",
    };
    expect(() => validateEvents([badUsage])).toThrow(expect.objectContaining({ path: "usage.inputTokens" }));
  });
});
