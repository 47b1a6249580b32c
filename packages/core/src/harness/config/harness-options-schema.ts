/**
 * The strict schemas of `runLeg`'s arguments — the host's `HarnessOptions` (with its agent) and
 * the `LegOptions` — checked when a leg is asked for, before anything is appended, so a wrong
 * configuration never leaves a task "running". Each options object is checked once.
 */
import { z } from "zod";
import type { Lease, Store } from "../../ports/store.ts";
import { checkConfig, checkedLater, functionSchema, isPlainWithKeys, kindOf } from "../../protocol/config-check.ts";
import type { SchemaMatches, ShapeOf } from "../../protocol/config-shape.ts";
import { holderSchema, legStartedSchema } from "../../protocol/task-event.ts";
import type { Agent, HarnessOptions } from "../agent.ts";
import type { LegOptions } from "../leg/leg-options.ts";
import { validateAgent } from "./agent-schema.ts";
import { configStamp, matchesStamp } from "./config-stamp.ts";

const STORE_METHODS = ["createTask", "append", "read", "acquireLease", "renewLease", "releaseLease"] as const;

function isStore(value: unknown): value is Store {
  if (typeof value !== "object" || value === null) return false;
  const store = value as Record<string, unknown>;
  return STORE_METHODS.every((method) => typeof store[method] === "function");
}

const storeSchema = z.custom<Store>(isStore, {
  error: (issue) =>
    issue.input === undefined
      ? "is missing: pass a Store, e.g. new MemoryStore() or a SQLite/PostgreSQL store"
      : `must be a Store (with ${STORE_METHODS.join(", ")}), got ${kindOf(issue.input)}`,
});

const positive = z.number().positive();

const harnessShape = {
  store: storeSchema,
  // Checked by `validateAgent` (once per agent object), which names the fix.
  agent: checkedLater<Agent>().optional(),
  holder: holderSchema.optional(),
  holderDied: functionSchema<NonNullable<HarnessOptions["holderDied"]>>("holderDied(holder)").optional(),
  leaseTtlMs: positive.optional(),
  pacing: z.boolean().optional(),
  emit: functionSchema<NonNullable<HarnessOptions["emit"]>>("emit(event)").optional(),
  childEmit: functionSchema<NonNullable<HarnessOptions["childEmit"]>>("childEmit(event)").optional(),
  toolTimeoutMs: positive.optional(),
  maxToolOutputChars: z.number().int().positive().optional(),
  snapshotEvery: z.number().int().positive().optional(),
  randomBytes: functionSchema<NonNullable<HarnessOptions["randomBytes"]>>("randomBytes(length)").optional(),
  clock: functionSchema<NonNullable<HarnessOptions["clock"]>>(
    "clock() returns milliseconds since the epoch",
  ).optional(),
  quota: z
    .custom<NonNullable<HarnessOptions["quota"]>>(
      (value) =>
        typeof value === "object" && value !== null && typeof (value as { check?: unknown }).check === "function",
      { error: (issue) => `must be a QuotaGate (storeQuotaGate(...)), got ${kindOf(issue.input)}` },
    )
    .optional(),
  traceparentOf: functionSchema<NonNullable<HarnessOptions["traceparentOf"]>>("traceparentOf(call)").optional(),
  onToolError: functionSchema<NonNullable<HarnessOptions["onToolError"]>>("onToolError(error, call)").optional(),
} satisfies ShapeOf<HarnessOptions>;
// `agent` may be missing here: validateAgent checks it next, and its message names the fix.
const harnessKeysMatch: SchemaMatches<
  z.ZodObject<typeof harnessShape>,
  Omit<HarnessOptions, "agent"> & { agent?: Agent }
> = true;

const harnessSchema = z.strictObject(harnessShape);

const signalSchema = z.custom<AbortSignal>((value) => value instanceof AbortSignal, {
  error: (issue) => `must be an AbortSignal, got ${kindOf(issue.input)}`,
});

const legShape = {
  shutdown: signalSchema.optional(),
  signal: signalSchema.optional(),
  trigger: legStartedSchema.shape.trigger.optional(),
  lease: z
    .custom<Lease>(
      (value) => typeof value === "object" && value !== null && typeof (value as Lease).token === "string",
      { error: "must be a Lease from the store (claimRunnable, acquireLease)" },
    )
    .optional(),
} satisfies ShapeOf<LegOptions>;
const legKeysMatch: SchemaMatches<z.ZodObject<typeof legShape>, LegOptions> = true;

const legSchema = z.strictObject(legShape);

void [harnessKeysMatch, legKeysMatch];

// Options already checked, with what they held: a host that reuses its options object pays for
// the check once, and options changed since are checked again.
const checked = new WeakMap<object, readonly unknown[]>();

/**
 * Check `runLeg`'s (or `streamLeg`'s) arguments; throws a `ConfigError` naming every problem.
 * The agent is checked once per agent object, the options once per options object.
 */
export function validateLegArguments(options: HarnessOptions, legOptions: LegOptions, where: string): void {
  const stamp = checked.get(options);
  if (stamp === undefined || !matchesStamp(options, stamp)) {
    if (!isPlainHarness(options)) checkConfig(harnessSchema, options, where);
    checked.set(options, configStamp(options));
  }
  // Outside the options' cache (an options object may be given another agent); cached per agent.
  validateAgent(options.agent, where, "agent");
  // Usually a fresh literal per call, most often empty.
  if (!isPlainWithKeys(legOptions, NO_KEYS)) checkConfig(legSchema, legOptions, where, "legOptions");
}

/**
 * A fast yes for `{ store, agent }` (the agent is checked on its own): zod's check of the whole
 * schema was part of the 11% a young process spent checking `runLeg`'s arguments. Says yes only
 * to what `harnessSchema` accepts (property-tested); anything else goes to zod.
 */
export function isPlainHarness(options: object): boolean {
  return isPlainWithKeys(options, PLAIN_HARNESS_KEYS) && isStore(options.store);
}

const PLAIN_HARNESS_KEYS: ReadonlySet<string> = new Set(["store", "agent"]);
const NO_KEYS: ReadonlySet<string> = new Set();

/** The strict schemas of `runLeg`'s arguments (for their tests). */
export { harnessSchema, legSchema };
