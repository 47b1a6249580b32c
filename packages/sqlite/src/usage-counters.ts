/**
 * The usage counters of quotas per principal (`Store.usage`): one row per principal, hour and
 * model, moved inside the append's (or the create's) write transaction by the turns it writes, and
 * the count of a principal's active tasks that `maxActiveTasks` checks under the same write lock.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { TaskEvent } from "@sema-agent/core";
import { QuotaExceededError } from "@sema-agent/core/protocol";
import {
  ACTIVE_TASK_SQL,
  hourStartMs,
  movesUsage,
  type UsageBucket,
  type UsageReport,
  usageDeltas,
} from "@sema-agent/core/store-kit";

interface BucketRow {
  hour: string;
  model: string;
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  turns: number;
}

/**
 * Tasks whose owner (principal, first model) a `UsageCounters` remembers, the oldest forgotten
 * first. Above the live tasks of a busy node: at 10,000 live legs a bound of 10,000 forgot each
 * task just before its next turn, and every turn paid the lookup (a join, 14 µs).
 */
const OWNERS = 100_000;

interface Owner {
  principal: string;
  model: string | undefined;
}

/** The prepared statements of the counters, over one open database. */
export class UsageCounters {
  /**
   * A task's principal and the model on its `task_created` never change, so they are looked up
   * once, not at every turn (a query per model turn was a seventh of a 1-turn task's statements).
   */
  readonly #owners = new Map<string, Owner>();
  readonly #add: StatementSync;
  readonly #owner: StatementSync;
  readonly #buckets: StatementSync;
  readonly #active: StatementSync;

  constructor(db: DatabaseSync) {
    this.#add = db.prepare(
      `INSERT INTO usage_counters (principal, hour, model, input_tokens, cached_input_tokens, output_tokens, turns)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (principal, hour, model) DO UPDATE SET
         input_tokens = input_tokens + excluded.input_tokens,
         cached_input_tokens = cached_input_tokens + excluded.cached_input_tokens,
         output_tokens = output_tokens + excluded.output_tokens,
         turns = turns + excluded.turns`,
    );
    // The task's principal and the model on its task_created (seq 1), which its turns count under.
    this.#owner = db.prepare(
      `SELECT t.principal AS principal, e.body ->> '$.model' AS model
       FROM tasks t JOIN events e ON e.task_no = t.task_no AND e.seq = 1 WHERE t.task_id = ?`,
    );
    this.#buckets = db.prepare(
      `SELECT hour, model, input_tokens, cached_input_tokens, output_tokens, turns FROM usage_counters
       WHERE principal = ? AND hour >= ? ORDER BY hour, model`,
    );
    this.#active = db.prepare(`SELECT count(*) AS n FROM tasks WHERE principal = ? AND ${ACTIVE_TASK_SQL}`);
  }

  /** Inside the append's transaction, after its events are written: count its turns. */
  countAppend(taskId: string, events: readonly TaskEvent[], atMs: number): void {
    if (!movesUsage(events)) return;
    const owner = this.#ownerOf(taskId);
    if (owner === undefined) return;
    this.#count(owner.principal, usageDeltas(events, owner.model, atMs));
  }

  #ownerOf(taskId: string): Owner | undefined {
    const known = this.#owners.get(taskId);
    if (known !== undefined) return known;
    const row = this.#owner.get(taskId) as { principal: string; model: string | null } | undefined;
    if (row === undefined) return undefined;
    const owner = { principal: row.principal, model: row.model ?? undefined };
    this.#remember(taskId, owner);
    return owner;
  }

  #remember(taskId: string, owner: Owner): void {
    this.#owners.set(taskId, owner);
    if (this.#owners.size > OWNERS) this.#owners.delete(this.#owners.keys().next().value as string);
  }

  /** Inside the create's transaction: refuse past `maxActiveTasks`, then count the first events' turns. */
  checkCreate(principal: string, parentTaskId: string | undefined, maxActiveTasks: number | undefined): void {
    if (maxActiveTasks === undefined || parentTaskId !== undefined) return;
    const active = this.activeTasks(principal);
    if (active >= maxActiveTasks) throw new QuotaExceededError(principal, "concurrentTasks", active, maxActiveTasks);
  }

  countCreate(principal: string, model: string | undefined, events: readonly TaskEvent[], atMs: number): void {
    if (movesUsage(events)) this.#count(principal, usageDeltas(events, model, atMs));
  }

  activeTasks(principal: string): number {
    return Number((this.#active.get(principal) as { n: number }).n);
  }

  report(principal: string, sinceMs: number): UsageReport {
    const rows = this.#buckets.all(principal, new Date(hourStartMs(sinceMs)).toISOString()) as unknown as BucketRow[];
    const buckets: UsageBucket[] = rows.map((row) => ({
      hour: row.hour,
      model: row.model,
      inputTokens: Number(row.input_tokens),
      cachedInputTokens: Number(row.cached_input_tokens),
      outputTokens: Number(row.output_tokens),
      turns: Number(row.turns),
    }));
    return { buckets, activeTasks: this.activeTasks(principal) };
  }

  #count(principal: string, deltas: readonly UsageBucket[]): void {
    for (const d of deltas)
      this.#add.run(principal, d.hour, d.model, d.inputTokens, d.cachedInputTokens, d.outputTokens, d.turns);
  }
}
