/**
 * The retention policy of `sema.config.*` (`retention`) and `sema prune`: after how long, which
 * finished tasks are deleted or archived, store-wide, per agent and per principal; and the pure
 * rule of what is due. A principal's rule wins over an agent's, which wins over the store-wide one.
 */
import { z } from "zod";

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
const DURATION = /^([1-9][0-9]{0,8}|0)(ms|s|m|h|d|w)$/;

/** An age such as `30d`, `12h`, `90m` (units ms, s, m, h, d, w). */
export const durationSchema = z
  .string()
  .regex(DURATION, { error: 'must be an age such as "30d", "12h" or "90m" (units ms, s, m, h, d, w)' });

/** The milliseconds of a duration `durationSchema` accepted. */
export function durationMs(text: string): number {
  const match = DURATION.exec(text);
  if (match === null) throw new RangeError(`not a duration: ${text}`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** The statuses a task ends in, the only ones retention touches. */
export const finishedStatusSchema = z.enum(["completed", "failed", "cancelled"]);

/** One rule: tasks finished in one of `statuses` (default all three) and unchanged for `olderThan` are deleted or archived. */
export const retentionRuleSchema = z.strictObject({
  olderThan: durationSchema,
  statuses: z.array(finishedStatusSchema).min(1).exactOptional(),
  /** `delete` (the default) or `archive`: written to the archive first, then deleted. */
  action: z.enum(["delete", "archive"]).exactOptional(),
});

/** A rule, or `keep`: this agent's or principal's tasks are never removed. */
const ruleOrKeep = z.union([retentionRuleSchema, z.literal("keep")]);

/** `retention` of `sema.config.*`. */
export const retentionPolicySchema = z.strictObject({
  /** The store-wide rule; without it only the tasks of the agents and principals named below are removed. */
  default: retentionRuleSchema.exactOptional(),
  agents: z.record(z.string().min(1), ruleOrKeep).exactOptional(),
  principals: z.record(z.string().min(1), ruleOrKeep).exactOptional(),
  /** Where `archive` rules write (a folder; default `.sema/archive`). */
  archiveDir: z.string().min(1).exactOptional(),
  /** How often `sema serve` and `sema worker` apply the policy (default `1h`). */
  every: durationSchema.exactOptional(),
});

/** A retention rule (see {@link retentionRuleSchema}). */
export type RetentionRule = z.infer<typeof retentionRuleSchema>;
/** The retention policy (see {@link retentionPolicySchema}). */
export type RetentionPolicy = z.infer<typeof retentionPolicySchema>;
/** A finished status. */
export type FinishedStatus = z.infer<typeof finishedStatusSchema>;

/** What retention knows of a task when it decides: its owner, agent, status and last change. */
export interface RetentionCandidate {
  principal: string;
  /** The agent named on its `task_created`, if any. */
  agent?: string;
  status: string;
  /** ISO-8601. */
  updatedAt: string;
}

/** The rule that governs `task`: its principal's, else its agent's, else the store-wide one. */
export function ruleFor(policy: RetentionPolicy, task: RetentionCandidate): RetentionRule | "keep" | undefined {
  const byPrincipal = policy.principals?.[task.principal];
  if (byPrincipal !== undefined) return byPrincipal;
  const byAgent = task.agent === undefined ? undefined : policy.agents?.[task.agent];
  if (byAgent !== undefined) return byAgent;
  return policy.default;
}

/**
 * Whether `task` is due at `nowMs` under `policy`, and what to do with it: only a finished task,
 * in one of its rule's statuses, unchanged for at least the rule's age. Liveness beyond the status
 * (a lease, pending work, a live relative) is the store's to refuse (`TaskLive`).
 */
export function dueAction(
  policy: RetentionPolicy,
  task: RetentionCandidate,
  nowMs: number,
): "delete" | "archive" | undefined {
  const rule = ruleFor(policy, task);
  if (rule === undefined || rule === "keep") return undefined;
  const statuses: readonly string[] = rule.statuses ?? finishedStatusSchema.options;
  if (!statuses.includes(task.status)) return undefined;
  const updated = Date.parse(task.updatedAt);
  if (!Number.isFinite(updated) || nowMs - updated < durationMs(rule.olderThan)) return undefined;
  return rule.action ?? "delete";
}

/** The widest listing any rule needs: the youngest age and every status a rule names. */
export function listingBounds(
  policy: RetentionPolicy,
): { olderThanMs: number; statuses: FinishedStatus[] } | undefined {
  const rules = [
    policy.default,
    ...Object.values(policy.agents ?? {}),
    ...Object.values(policy.principals ?? {}),
  ].filter((rule): rule is RetentionRule => rule !== undefined && rule !== "keep");
  if (rules.length === 0) return undefined;
  const statuses = new Set<FinishedStatus>();
  for (const rule of rules) for (const status of rule.statuses ?? finishedStatusSchema.options) statuses.add(status);
  return {
    olderThanMs: Math.min(...rules.map((rule) => durationMs(rule.olderThan))),
    statuses: finishedStatusSchema.options.filter((status) => statuses.has(status)),
  };
}
