/**
 * The strict schemas of an `Agent` (and of the tools, hooks, budget … it holds) and the check
 * `runLeg`, `streamLeg` and the hosts run on it: unknown keys are refused by name, a missing model
 * or a tool without a schema or `execute` is a `ConfigError` that says what to set. Adding a field
 * to `Agent` means adding one line to `agentShape`; the compile fails until the two agree.
 */
import { z } from "zod";
import type { Model } from "../../ports/model.ts";
import type { Scorer } from "../../ports/scorer.ts";
import type { StandardSchemaV1 } from "../../ports/standard-schema.ts";
import type { Tool } from "../../ports/tool.ts";
import { checkConfig, functionSchema, isPlainWithKeys, kindOf } from "../../protocol/config-check.ts";
import type { SchemaMatches, ShapeOf } from "../../protocol/config-shape.ts";
import { ConfigError } from "../../protocol/errors.ts";
import { modelSettingsSchema, providerOptionsSchema } from "../../protocol/model-settings.ts";
import { provenancePolicySchema, readerFieldKindSchema, toolEffectsSchema } from "../../protocol/provenance.ts";
import { callerProviderOptionsSchema, isReservedProviderOption } from "../../protocol/provider-options.ts";
import type { Agent, DelegationSettings, OutputSchema, ScoringSettings } from "../agent.ts";
import type { Budget, ModelPrice } from "../budget/budget.ts";
import type { HookSettings, Hooks } from "../hooks/hooks.ts";
import type { CompactionSettings } from "../model/compaction.ts";
import { configStamp, matchesStamp } from "./config-stamp.ts";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isModel(value: unknown): value is Model {
  return isObject(value) && typeof value.id === "string" && typeof value.stream === "function";
}

/** A Model port: `{ id, stream }`. */
export const modelSchema = z.custom<Model>(isModel, {
  error: (issue) =>
    issue.input === undefined
      ? "is missing: pass a Model, e.g. fromAiSdk(...) of @sema-agent/ai-sdk"
      : `must be a Model ({ id: string, stream(request, signal) }), e.g. fromAiSdk(...) of @sema-agent/ai-sdk; got ${kindOf(issue.input)}`,
});

/** A Standard Schema (zod, valibot, arktype …): an object with `~standard.validate`. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  const standard = (value as { "~standard"?: unknown })["~standard"];
  return isObject(standard) && typeof standard.validate === "function";
}

const count = z.number().int().nonnegative();
const positive = z.number().positive();

const toolShape = {
  name: z.string().min(1),
  description: z.string(),
  inputSchema: z.custom<StandardSchemaV1>(isStandardSchema, {
    error: (issue) =>
      issue.input === undefined
        ? "is missing: define the tool with defineTool({ inputSchema }) (a zod schema or a JSON Schema object)"
        : `must be a Standard Schema (define the tool with defineTool to pass a JSON Schema), got ${kindOf(issue.input)}`,
  }),
  jsonSchema: z.custom<Tool["jsonSchema"]>(isObject, {
    error: "must be the JSON Schema object the model sees: define the tool with defineTool, which derives it",
  }),
  execute: functionSchema<Tool["execute"]>("execute(input, context) runs the tool"),
  readOnly: z.boolean().optional(),
  idempotent: z.boolean().optional(),
  timeoutMs: positive.optional(),
  untrustedOutput: z.boolean().optional(),
  effects: toolEffectsSchema.optional(),
  egress: z.boolean().optional(),
  egressHosts: z.array(z.string().min(1).max(253)).readonly().optional(),
  untaintedInputs: z.array(z.string().regex(/^\//, "a JSON Pointer, e.g. /taskId")).readonly().optional(),
  readerFields: z.record(z.string(), readerFieldKindSchema).optional(),
  maxOutputChars: z.number().int().positive().optional(),
  needsApproval: z
    .union([
      z.boolean(),
      functionSchema<Exclude<NonNullable<Tool["needsApproval"]>, boolean>>("needsApproval(input, context)"),
    ])
    .optional(),
} satisfies ShapeOf<Tool>;
const toolKeysMatch: SchemaMatches<z.ZodObject<typeof toolShape>, Tool> = true;

/** A tool as an agent holds it (what `defineTool` returns, or a hand-written `Tool`). */
export const toolSchema = z.strictObject(toolShape);

const hookShape = {
  beforeModel: functionSchema<NonNullable<Hooks["beforeModel"]>>("beforeModel(context)").optional(),
  afterModel: functionSchema<NonNullable<Hooks["afterModel"]>>("afterModel(context)").optional(),
  beforeTool: functionSchema<NonNullable<Hooks["beforeTool"]>>("beforeTool(context)").optional(),
  afterTool: functionSchema<NonNullable<Hooks["afterTool"]>>("afterTool(context)").optional(),
  onStop: functionSchema<NonNullable<Hooks["onStop"]>>("onStop(context)").optional(),
} satisfies ShapeOf<Hooks>;
const hookKeysMatch: SchemaMatches<z.ZodObject<typeof hookShape>, Hooks> = true;

const failureMode = z.enum(["open", "closed"]).optional();
const hookSettingsShape = {
  timeoutMs: positive.optional(),
  failure: z
    .strictObject({
      beforeModel: failureMode,
      afterModel: failureMode,
      beforeTool: failureMode,
      afterTool: failureMode,
      onStop: failureMode,
    } satisfies ShapeOf<Hooks>)
    .optional(),
  maxStopContinuations: count.optional(),
} satisfies ShapeOf<HookSettings>;
const hookSettingsKeysMatch: SchemaMatches<z.ZodObject<typeof hookSettingsShape>, HookSettings> = true;

const priceShape = {
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cachedInput: z.number().nonnegative().optional(),
} satisfies ShapeOf<ModelPrice>;
const priceKeysMatch: SchemaMatches<z.ZodObject<typeof priceShape>, ModelPrice> = true;

const budgetShape = {
  maxTurns: count.optional(),
  turnsScope: z.enum(["task", "tree"]).optional(),
  maxTokens: count.optional(),
  maxCostUsd: z.number().nonnegative().optional(),
  maxActiveMs: z.number().nonnegative().optional(),
  onExceeded: z.enum(["park", "fail"]).optional(),
  prices: z.record(z.string(), z.strictObject(priceShape)).optional(),
} satisfies ShapeOf<Budget>;
const budgetKeysMatch: SchemaMatches<z.ZodObject<typeof budgetShape>, Budget> = true;

const compactionShape = {
  contextWindowTokens: z.number().int().positive(),
  threshold: positive.optional(),
  keepRecentTurns: count.optional(),
  model: modelSchema.optional(),
} satisfies ShapeOf<CompactionSettings>;
const compactionKeysMatch: SchemaMatches<z.ZodObject<typeof compactionShape>, CompactionSettings> = true;

const scorerSchema = z.custom<Scorer>(
  (value) =>
    isObject(value) &&
    typeof (value as { score?: unknown }).score === "function" &&
    typeof (value as { name?: unknown }).name === "string",
  { error: (issue) => `must be a Scorer (defineScorer of @sema-agent/core/scoring), got ${kindOf(issue.input)}` },
);
const scoringShape = {
  scorers: z
    .array(scorerSchema)
    .min(1, "names at least one scorer")
    .refine(
      (scorers) => new Set(scorers.map((s) => s.name)).size === scorers.length,
      "repeats a scorer's name: results are keyed by it",
    ),
  sampleRate: z.number().min(0).max(1).optional(),
} satisfies ShapeOf<ScoringSettings>;
const scoringKeysMatch: SchemaMatches<z.ZodObject<typeof scoringShape>, ScoringSettings> = true;

// The agents a child may run as are checked by `validateAgent` itself (they may name each other).
const subAgent = z.custom<Agent>(isObject, { error: (issue) => `must be an Agent object, got ${kindOf(issue.input)}` });
const delegationShape = {
  agents: z.record(z.string(), subAgent).optional(),
  maxDepth: count.optional(),
  maxChildren: count.optional(),
  runChildren: z.boolean().optional(),
  toolName: z.string().min(1).optional(),
} satisfies ShapeOf<DelegationSettings>;
const delegationKeysMatch: SchemaMatches<z.ZodObject<typeof delegationShape>, DelegationSettings> = true;

// A reserved key would be dropped by the model adapter: refused here, where the operator sees it.
const agentProviderOptions = providerOptionsSchema.superRefine((options, context) => {
  for (const [provider, values] of Object.entries(options))
    for (const key of Object.keys(values))
      if (isReservedProviderOption(key))
        context.addIssue({
          code: "custom",
          path: [provider, key],
          message:
            "is reserved: set the model with `model`, the output limit with `maxOutputTokens`; the number of completions is always 1",
        });
});

// The model settings' own schemas, with provider options refused a reserved key. Each is
// `.optional()`: an agent written in JavaScript may hold `undefined` for a setting it leaves unset.
const agentSettingsShape = modelSettingsSchema
  .extend({ providerOptions: agentProviderOptions.exactOptional() })
  .partial().shape;

/** One line per `Agent` field: the compile fails while a field of `Agent` has no line here, or a line no field. */
const agentShape = {
  name: z.string().optional(),
  model: modelSchema,
  instructions: z
    .union([z.string(), functionSchema<Exclude<Agent["instructions"], string | undefined>>("instructions(state)")])
    .optional(),
  standingInstructions: z.boolean().optional(),
  tools: z.array(toolSchema).optional(),
  ...agentSettingsShape,
  callerProviderOptions: callerProviderOptionsSchema.optional(),
  output: z
    .custom<OutputSchema>(isObject, {
      error: (issue) => `must be a Standard Schema (zod …) or a JSON Schema object, got ${kindOf(issue.input)}`,
    })
    .optional(),
  outputAttempts: z.number().int().min(1).optional(),
  approvalPolicy: functionSchema<NonNullable<Agent["approvalPolicy"]>>("approvalPolicy(call, context)").optional(),
  provenancePolicy: provenancePolicySchema.optional(),
  hooks: z.strictObject(hookShape).optional(),
  hookSettings: z.strictObject(hookSettingsShape).optional(),
  delegation: z.strictObject(delegationShape).optional(),
  compaction: z.strictObject(compactionShape).optional(),
  budget: z.strictObject(budgetShape).optional(),
  scoring: z.strictObject(scoringShape).optional(),
  onModelUnavailable: z.enum(["park", "fail"]).optional(),
  modelBackoff: z.strictObject({ baseMs: positive.optional(), maxMs: positive.optional() }).optional(),
} satisfies ShapeOf<Agent>;
const agentKeysMatch: SchemaMatches<z.ZodObject<typeof agentShape>, Agent> = true;

/** The strict schema of an `Agent` (its sub-agents are checked by `validateAgent`). */
export const agentSchema = z.strictObject(agentShape);

// Referenced so the compile-time checks are not unused.
void [
  toolKeysMatch,
  hookKeysMatch,
  hookSettingsKeysMatch,
  priceKeysMatch,
  budgetKeysMatch,
  compactionKeysMatch,
  scoringKeysMatch,
  delegationKeysMatch,
  agentKeysMatch,
];

// Agents already checked, with what they held then: a leg pays for the check once per agent
// object, not per call or turn, and an agent changed since is checked again.
const checked = new WeakMap<object, readonly unknown[]>();
// Tools a full agent check passed: an agent built anew around them (a fresh literal per task is
// common) is then checked by `isPlainAgent` without zod, unless the tool changed since.
const checkedTools = new WeakMap<object, readonly unknown[]>();

const stillChecked = (cache: WeakMap<object, readonly unknown[]>, value: object): boolean => {
  const stamp = cache.get(value);
  return stamp !== undefined && matchesStamp(value, stamp);
};

/** Whether `agent` and every agent it may delegate to hold what they held when checked. */
function unchangedSinceChecked(agent: object, visiting: Set<object>): boolean {
  if (visiting.has(agent)) return true;
  if (!stillChecked(checked, agent)) return false;
  visiting.add(agent);
  const delegation = (agent as { delegation?: { agents?: Record<string, unknown> } }).delegation;
  for (const sub of Object.values(delegation?.agents ?? {}))
    if (!isObject(sub) || !unchangedSinceChecked(sub, visiting)) return false;
  for (const tool of ((agent as { tools?: unknown }).tools as unknown[] | undefined) ?? [])
    if (!isObject(tool) || !stillChecked(checkedTools, tool)) return false;
  return true;
}
const PLAIN_AGENT_KEYS: ReadonlySet<string> = new Set(["model", "tools", "name"]);

/**
 * A fast yes for the agent most calls build, `{ model, tools?, name? }` over tools already
 * checked: zod's check of the whole schema was 6% of a 1-turn task's CPU in a young process. Says
 * yes only to what `agentSchema` accepts (property-tested); anything else goes to zod.
 */
export function isPlainAgent(agent: object): boolean {
  if (!isPlainWithKeys(agent, PLAIN_AGENT_KEYS)) return false;
  const { model, tools, name } = agent;
  if (!isModel(model) || (name !== undefined && typeof name !== "string")) return false;
  if (tools === undefined) return true;
  return Array.isArray(tools) && tools.every((tool) => isObject(tool) && stillChecked(checkedTools, tool));
}

/**
 * Check an agent (and every agent it may delegate to) strictly, once per object: throws a
 * `ConfigError` naming each path (`agent.model is missing: pass a Model, e.g. fromAiSdk(...)`)
 * and every unknown key. `where` names the entry point in the message; `path` is where the agent
 * sits in what was given (default `agent`).
 */
export function validateAgent(agent: unknown, where = "validateAgent", path = "agent"): asserts agent is Agent {
  if (isObject(agent) && unchangedSinceChecked(agent, new Set())) return;
  checkAgent(agent, where, path, new Set());
}

function checkAgent(agent: unknown, where: string, path: string, visiting: Set<object>): void {
  if (!isObject(agent)) {
    throw new ConfigError(where, [
      {
        path,
        message:
          agent === undefined
            ? "is missing: pass an Agent, e.g. { model: fromAiSdk(...) }"
            : `must be an Agent object, got ${kindOf(agent)}`,
      },
    ]);
  }
  if (visiting.has(agent) || unchangedSinceChecked(agent, new Set())) return;
  if (isPlainAgent(agent)) {
    checked.set(agent, configStamp(agent));
    return;
  }
  visiting.add(agent);
  const parsed = checkConfig(agentSchema, agent, where, path);
  for (const tool of ((agent as { tools?: unknown }).tools as unknown[] | undefined) ?? [])
    if (isObject(tool)) checkedTools.set(tool, configStamp(tool));
  for (const [name, sub] of Object.entries(parsed.delegation?.agents ?? {}))
    checkAgent(sub, where, `${path}.delegation.agents.${name}`, visiting);
  checked.set(agent, configStamp(agent));
}
