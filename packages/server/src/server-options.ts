/**
 * What `createApp`'s and `serve`'s strict option schemas (beside each) are built from: an unknown
 * key is refused by name; a missing store or registry, a registered agent without a model, is a
 * `ConfigError` that says what to set — at start, never from inside a request or a leg.
 */
import { type Agent, type Store, validateAgent } from "@sema-agent/core";
import {
  ConfigError,
  holderSchema,
  type LeaseHolder,
  type SchemaMatches,
  type ShapeOf,
} from "@sema-agent/core/protocol";
import type { AgentRegistry } from "@sema-agent/worker";
import { z } from "zod";
import type { ApproverSettings } from "./approval-policy.ts";
import type { Limits } from "./limits.ts";

function hasMethods(value: unknown, methods: readonly string[]): boolean {
  if (typeof value !== "object" || value === null) return false;
  const object = value as Record<string, unknown>;
  return methods.every((method) => typeof object[method] === "function");
}

export function objectWith<T>(methods: readonly string[], what: string): z.ZodType<T> {
  return z.custom<T>((value) => hasMethods(value, methods), {
    error: (issue) =>
      issue.input === undefined ? `is missing: pass ${what}` : `must be ${what} (with ${methods.join(", ")})`,
  });
}

export const storeSchema = objectWith<Store>(
  ["createTask", "append", "read", "acquireLease", "releaseLease"],
  "a Store, e.g. new MemoryStore() or a SQLite/PostgreSQL store",
);
export const registrySchema = z.custom<AgentRegistry>(
  (value) => hasMethods(value, ["get", "names"]) && typeof (value as AgentRegistry).defaultName === "string",
  {
    error: (issue) =>
      issue.input === undefined
        ? "is missing: pass an AgentRegistry, e.g. createAgentRegistry({ assistant: agent })"
        : "must be an AgentRegistry (defaultName, get, names), e.g. createAgentRegistry({ assistant: agent })",
  },
);

const limitsShape = {
  maxBodyBytes: z.number().int().positive().optional(),
  maxJsonDepth: z.number().int().positive().optional(),
  maxTextChars: z.number().int().positive().optional(),
  ratePerMinute: z.number().positive().optional(),
  rateBurst: z.number().positive().optional(),
  heartbeatMs: z.number().positive().optional(),
  sseMaxBufferedBytes: z.number().int().positive().optional(),
  sseMaxTotalBufferedBytes: z.number().int().positive().optional(),
  sseRecheckMs: z.number().positive().optional(),
  maxTaskListStreams: z.number().int().positive().optional(),
  maxContentBodyBytes: z.number().int().positive().optional(),
  maxImportBodyBytes: z.number().int().positive().optional(),
  maxConcurrentReplays: z.number().int().positive().optional(),
  maxDatasetBodyBytes: z.number().int().positive().optional(),
  // runExperiment's own bounds: 1 to 256 cases at once.
  maxExperimentConcurrency: z.number().int().min(1).max(256).optional(),
  maxPartBytes: z.number().int().positive().optional(),
  maxContentBytes: z.number().int().positive().optional(),
} satisfies ShapeOf<Limits>;
export const limitsSchema = z.strictObject(limitsShape);

const approverRule = z.enum(["approver-role", "any-verified-actor"]);
const approversShape = {
  default: approverRule.optional(),
  agents: z.record(z.string(), approverRule).optional(),
} satisfies ShapeOf<ApproverSettings>;
export const approversSchema = z.strictObject(approversShape);

const shapesMatch: [
  SchemaMatches<typeof limitsSchema, Partial<Limits>>,
  SchemaMatches<typeof approversSchema, ApproverSettings>,
] = [true, true];
void shapesMatch;

/** The in-process worker pool's options, as `serve` and `serveMcpStdio` take them. */
export const workersShape = {
  concurrency: z.number().int().nonnegative().optional(),
  maxPerPrincipal: z.number().int().positive().optional(),
  pollMs: z.number().positive().optional(),
  holder: holderSchema.optional(),
  leaseTtlMs: z.number().positive().optional(),
} satisfies ShapeOf<WorkersOptions>;
const workersMatch: SchemaMatches<z.ZodObject<typeof workersShape>, WorkersOptions> = true;
void workersMatch;

/** The in-process worker pool's settings (`serve`, `serveMcpStdio`). */
export interface WorkersOptions {
  concurrency?: number;
  maxPerPrincipal?: number;
  pollMs?: number;
  holder?: LeaseHolder;
  leaseTtlMs?: number;
}

/** Every agent a registry holds, checked by name (`agents.reviewer.model is missing: …`). */
export function checkAgents(registry: AgentRegistry, where: string): void {
  for (const name of registry.names()) {
    const agent: Agent | undefined = registry.get(name);
    if (agent === undefined)
      throw new ConfigError(where, [{ path: `agents.${name}`, message: "is listed but not registered" }]);
    validateAgent(agent, where, `agents.${name}`);
  }
}
