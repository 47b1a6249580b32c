/**
 * A fast yes for the events every model turn appends (`model_turn`, `tool_call_started`,
 * `tool_result`) and every plain task does (`task_created`, `leg_started`, `leg_ended`, a text-only
 * `human_input` and `user_message`, `task_completed`): zod takes about 1.8 µs for the first three, some 15% of an
 * in-memory turn, and the rest were 15% of a 1-turn task's CPU in a young process. These
 * checks say yes only to an event its zod schema accepts (property-tested against the schemas);
 * anything else, valid or not, goes to zod, which keeps the last word and writes the error.
 */
import { isJsonValue } from "../protocol/json.ts";
import { legEndReasonSchema } from "../protocol/task-event.ts";
import type { Usage } from "../protocol/usage.ts";

type Check = (value: unknown) => boolean;

const text: Check = (value) => typeof value === "string";
const bool: Check = (value) => typeof value === "boolean";
const nonEmpty: Check = (value) => typeof value === "string" && value.length > 0;
const count: Check = (value) => Number.isSafeInteger(value) && (value as number) >= 0;
const positive: Check = (value) => Number.isSafeInteger(value) && (value as number) > 0;
const json: Check = (value) => isJsonValue(value);
const literal =
  (expected: string | number | boolean): Check =>
  (value) =>
    value === expected;
const oneOf = (...options: string[]): Check => {
  const allowed = new Set(options);
  return (value) => typeof value === "string" && allowed.has(value);
};
const arrayOf =
  (item: Check): Check =>
  (value) =>
    Array.isArray(value) && value.every(item);

/** A plain object with every `required` key, no key outside `required` and `optional`. */
function strictObject(required: Record<string, Check>, optional: Record<string, Check> = {}): Check {
  const checks = new Map<string, Check>([...Object.entries(required), ...Object.entries(optional)]);
  const requiredKeys = new Set(Object.keys(required));
  return (value) => {
    if (typeof value !== "object" || value === null) return false;
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return false;
    let present = 0;
    for (const key in value) {
      const check = checks.get(key);
      // An optional key is never `undefined` (exactOptional): the checks refuse it.
      if (check === undefined || !check((value as Record<string, unknown>)[key])) return false;
      if (requiredKeys.has(key)) present++;
    }
    return present === requiredKeys.size;
  };
}

/** The keys `T` may leave out. */
type OptionalKeys<T> = { [K in keyof T]-?: Record<never, never> extends Pick<T, K> ? K : never }[keyof T];

// Exactly the keys of `usageSchema`'s type, required and optional as there: a key added to the
// schema fails the compile here; its test generates usages from the schema's own keys.
const usage = strictObject(
  { inputTokens: count, outputTokens: count } satisfies Record<Exclude<keyof Usage, OptionalKeys<Usage>>, Check>,
  { cachedInputTokens: count, reasoningTokens: count } satisfies Record<OptionalKeys<Usage>, Check>,
);

const toolCall = strictObject({ callId: nonEmpty, name: nonEmpty, input: json });

const holder = strictObject({ id: nonEmpty }, { host: text, pid: count, space: nonEmpty });

const actor = strictObject({ id: text, verified: bool }, { issuer: text });

const hex64 = /^[0-9a-f]{64}$/;
const sha256: Check = (value) => typeof value === "string" && value.length === 64 && hex64.test(value);
const requestDigest = strictObject({
  digest: sha256,
  system: sha256,
  tools: sha256,
  settings: sha256,
  transcript: sha256,
  entries: count,
});

const modelTurnKeys = {
  type: literal("model_turn"),
  legId: nonEmpty,
  sessionSeq: count,
  text,
  toolCalls: arrayOf(toolCall),
  usage,
  finishReason: oneOf("stop", "length", "content-filter", "tool-calls", "error", "other"),
};
// Version 2 (what the harness writes) carries the request's digests; version 1 has none.
const modelTurnV1 = strictObject({ ...modelTurnKeys, v: literal(1) }, { reasoning: text, model: text });
const modelTurnV2 = strictObject(
  { ...modelTurnKeys, v: literal(2), request: requestDigest },
  { reasoning: text, model: text },
);

const CHECKS: ReadonlyMap<string, Check> = new Map([
  ["model_turn", (value: unknown) => modelTurnV2(value) || modelTurnV1(value)],
  [
    "tool_call_started",
    strictObject(
      {
        type: literal("tool_call_started"),
        v: literal(1),
        legId: nonEmpty,
        callId: nonEmpty,
        name: nonEmpty,
        attempt: positive,
      },
      { input: json },
    ),
  ],
  // Version 1, without metadata or a trace context (those go to zod).
  [
    "task_created",
    strictObject(
      { type: literal("task_created"), v: literal(1), objective: text, principal: nonEmpty },
      { agent: nonEmpty, model: nonEmpty, parentTaskId: nonEmpty, actor },
    ),
  ],
  [
    "leg_started",
    strictObject(
      {
        type: literal("leg_started"),
        v: literal(1),
        legId: nonEmpty,
        trigger: oneOf("start", "resume", "wake", "recover"),
      },
      { holder },
    ),
  ],
  [
    "leg_ended",
    strictObject(
      { type: literal("leg_ended"), v: literal(1), legId: nonEmpty, reason: oneOf(...legEndReasonSchema.options) },
      { detail: text },
    ),
  ],
  // Version 1 only, so without attachments; one with a trace context goes to zod.
  [
    "human_input",
    strictObject(
      {
        type: literal("human_input"),
        v: literal(1),
        inputId: nonEmpty,
        carrier: nonEmpty,
        source: oneOf("user", "operator", "supervisor", "external", "system"),
        delivery: oneOf("received", "parked", "applied", "dropped"),
        sessionSeq: count,
      },
      {
        text,
        actor,
        issuer: text,
        principal: text,
        entryId: text,
        legId: text,
        policy: oneOf("steer", "queue", "interrupt", "reject"),
        reason: text,
      },
    ),
  ],
  // Version 1 only, so without parts.
  [
    "user_message",
    strictObject({
      type: literal("user_message"),
      v: literal(1),
      entryId: nonEmpty,
      content: text,
      inputIds: arrayOf(nonEmpty),
    }),
  ],
  ["task_completed", strictObject({ type: literal("task_completed"), v: literal(1), result: text })],
  [
    "tool_result",
    strictObject(
      {
        type: literal("tool_result"),
        v: literal(1),
        callId: nonEmpty,
        name: nonEmpty,
        status: oneOf("ok", "error", "denied", "interrupted"),
        content: text,
      },
      { output: json, truncated: literal(true), durationMs: count, legId: text },
    ),
  ],
]);

/** True only when `event` is one of the covered types and valid; false says nothing. */
export function isSurelyValidEvent(event: unknown): boolean {
  if (typeof event !== "object" || event === null) return false;
  const check = CHECKS.get((event as { type?: unknown }).type as string);
  return check?.(event) === true;
}

/** The event types the fast check covers (for its tests). */
export const FAST_CHECKED_TYPES: readonly string[] = [...CHECKS.keys()];
