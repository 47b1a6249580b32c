/**
 * The usage counters of quotas per principal (`Store.usage`): one row per principal, hour and
 * model, moved inside the append's (or the create's) transaction by the turns it writes; and the
 * count of a principal's active tasks that `maxActiveTasks` checks under a per-principal
 * transaction lock, so creations racing on any number of API nodes never both take the last slot.
 */
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
import type pg from "pg";

interface BucketRow {
  hour: string;
  model: string;
  input_tokens: string;
  cached_input_tokens: string;
  output_tokens: string;
  turns: number;
}

/**
 * The turns' usage as the append statements count it in the same statement (`countUsage` in
 * queries.ts): one entry per `model_turn`, its task, its model (null: the task's own) and tokens.
 */
export interface TurnUsageColumns {
  tasks: string[];
  models: Array<string | null>;
  input: number[];
  cached: number[];
  output: number[];
  turns: number[];
}

/** Empty columns, to fill with {@link addTurnUsage}. */
export function turnUsageColumns(): TurnUsageColumns {
  return { tasks: [], models: [], input: [], cached: [], output: [], turns: [] };
}

/**
 * Add the `model_turn` events of one append to `taskId` into `columns`, and the `tool_result`s
 * that carry a tool's own model usage (a quarantined reader's: tokens, no turn).
 */
export function addTurnUsage(columns: TurnUsageColumns, taskId: string, events: readonly TaskEvent[]): void {
  for (const event of events) {
    const usage =
      event.type === "model_turn" || (event.type === "tool_result" && event.usage !== undefined)
        ? event.usage
        : undefined;
    if (usage === undefined) continue;
    columns.tasks.push(taskId);
    columns.models.push(event.type === "model_turn" || event.type === "tool_result" ? (event.model ?? null) : null);
    columns.input.push(usage.inputTokens);
    columns.cached.push(usage.cachedInputTokens ?? 0);
    columns.output.push(usage.outputTokens);
    columns.turns.push(event.type === "model_turn" ? 1 : 0);
  }
}

/** The columns as the statements' parameters $14 … $19, in order. */
export function turnUsageParams(columns: TurnUsageColumns): unknown[] {
  return [columns.tasks, columns.models, columns.input, columns.cached, columns.output, columns.turns];
}

/** The counters' statements, with the (quoted) schema filled in. */
export class UsageCounters {
  readonly #add: string;
  readonly #taskModel: string;
  readonly #buckets: string;
  readonly #active: string;
  readonly #lock: string;

  constructor(s: string) {
    // One row per model of the append (usageDeltas merges them), so ON CONFLICT meets each once;
    // in model order, as the batched statements take them, so the two never deadlock.
    this.#add = `INSERT INTO ${s}.usage_counters (principal, hour, model, input_tokens, cached_input_tokens, output_tokens, turns)
      SELECT $1, $2, u.model, u.i, u.c, u.o, u.t
      FROM unnest($3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::integer[]) AS u (model, i, c, o, t)
      ORDER BY u.model
      ON CONFLICT (principal, hour, model) DO UPDATE SET
        input_tokens = usage_counters.input_tokens + excluded.input_tokens,
        cached_input_tokens = usage_counters.cached_input_tokens + excluded.cached_input_tokens,
        output_tokens = usage_counters.output_tokens + excluded.output_tokens,
        turns = usage_counters.turns + excluded.turns`;
    this.#taskModel = `SELECT body::jsonb ->> 'model' AS model FROM ${s}.events WHERE task_no = $1 AND seq = 1`;
    this.#buckets = `SELECT hour, model, input_tokens, cached_input_tokens, output_tokens, turns FROM ${s}.usage_counters
      WHERE principal = $1 AND hour >= $2 ORDER BY hour, model`;
    this.#active = `SELECT count(*)::integer AS n FROM ${s}.tasks WHERE principal = $1 AND ${ACTIVE_TASK_SQL}`;
    // Held until the creating transaction ends: the next creator of the principal counts after it.
    this.#lock = `SELECT pg_advisory_xact_lock(hashtextextended($1, 22))`;
  }

  /** Inside the append's transaction, after its writes: count its turns. */
  async countAppend(
    client: pg.PoolClient,
    task: { taskNo: string; principal: string },
    events: readonly TaskEvent[],
    atMs: number,
  ): Promise<void> {
    if (!movesUsage(events)) return;
    const anonymous = events.some(
      (event) =>
        (event.type === "model_turn" || (event.type === "tool_result" && event.usage !== undefined)) &&
        event.model === undefined,
    );
    const model = anonymous
      ? ((await client.query<{ model: string | null }>(this.#taskModel, [task.taskNo])).rows[0]?.model ?? undefined)
      : undefined;
    await this.#count(client, task.principal, usageDeltas(events, model, atMs));
  }

  /** Inside the create's transaction, before its insert: refuse past `maxActiveTasks`. */
  async checkCreate(
    client: pg.PoolClient,
    principal: string,
    parentTaskId: string | undefined,
    maxActiveTasks: number | undefined,
  ): Promise<void> {
    if (maxActiveTasks === undefined || parentTaskId !== undefined) return;
    await client.query(this.#lock, [principal]);
    const active = (await client.query<{ n: number }>(this.#active, [principal])).rows[0]?.n ?? 0;
    if (active >= maxActiveTasks) throw new QuotaExceededError(principal, "concurrentTasks", active, maxActiveTasks);
  }

  /** Inside the create's transaction: count the first events' turns (rare: a copied log). */
  async countCreate(
    client: pg.PoolClient,
    principal: string,
    model: string | undefined,
    events: readonly TaskEvent[],
    atMs: number,
  ): Promise<void> {
    if (movesUsage(events)) await this.#count(client, principal, usageDeltas(events, model, atMs));
  }

  async report(db: pg.Pool, principal: string, sinceMs: number): Promise<UsageReport> {
    const since = new Date(hourStartMs(sinceMs)).toISOString();
    const [buckets, active] = await Promise.all([
      db.query<BucketRow>(this.#buckets, [principal, since]),
      db.query<{ n: number }>(this.#active, [principal]),
    ]);
    return {
      buckets: buckets.rows.map(
        (row): UsageBucket => ({
          hour: row.hour,
          model: row.model,
          inputTokens: Number(row.input_tokens),
          cachedInputTokens: Number(row.cached_input_tokens),
          outputTokens: Number(row.output_tokens),
          turns: Number(row.turns),
        }),
      ),
      activeTasks: active.rows[0]?.n ?? 0,
    };
  }

  async #count(client: pg.PoolClient, principal: string, deltas: readonly UsageBucket[]): Promise<void> {
    const [first] = deltas;
    if (first === undefined) return;
    await client.query(this.#add, [
      principal,
      first.hour,
      deltas.map((d) => d.model),
      deltas.map((d) => d.inputTokens),
      deltas.map((d) => d.cachedInputTokens),
      deltas.map((d) => d.outputTokens),
      deltas.map((d) => d.turns),
    ]);
  }
}
