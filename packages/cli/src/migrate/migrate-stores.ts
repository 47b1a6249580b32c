/**
 * Copying tasks from one store to another (`sema migrate`): each task's log exactly as stored
 * (`restoreTask`: ids, seqs, times, bodies), its blobs, and its A2A push configs; the summary is
 * rebuilt by the target. Then the migrated principals' records (evaluation datasets and
 * experiments, see `migrateRecords`). Idempotent per task, so a run killed at any point is run again: a task
 * already in the target is checked by the digest of its log and left alone. A task with a live
 * lease (a leg running) is refused, never copied half-way through a leg: stop the nodes first,
 * or run again once it has parked. Tasks are copied `concurrency` at a time (default 8): each
 * still in a transaction of its own, which a target with group commit (SQLite) shares between
 * those that arrive together and a PostgreSQL target runs on as many connections.
 */
import { createHash } from "node:crypto";
import type { Store, StoredEvent, TaskRecord } from "@sema-agent/core";
import { isSemaError } from "@sema-agent/core/protocol";
import { blobDigests, isLeaseLive } from "@sema-agent/core/store-kit";
import type { PushConfigStore } from "@sema-agent/server/a2a";
import { migrateRecords, type RecordsReport } from "./migrate-records.ts";

/** The A2A push configs of a store, as far as a migration reads and writes them. */
export type PushConfigs = Pick<PushConfigStore, "list" | "put">;

/** What to copy and how: whose tasks, since when, the push configs on each side, and the time. */
export interface MigrateOptions {
  /** Only this principal's tasks (default every principal's). */
  principal?: string;
  /** Only tasks changed at or after this time (ms since the epoch). */
  sinceMs?: number;
  /** The time a lease is judged live at (default now). */
  nowMs?: number;
  from?: { pushConfigs?: PushConfigs };
  to?: { pushConfigs?: PushConfigs };
  /** Tasks copied at once (default 8, at most 64). */
  concurrency?: number;
  /** After each task, copied or not (progress). */
  onTask?: (taskId: string, outcome: "copied" | "present" | "refused" | "mismatched") => void;
}

/** What a migration did, task by task. */
export interface MigrateReport {
  /** Written to the target by this run, and verified by digest. */
  copied: string[];
  /** Already in the target with the same log (a run again after a kill). */
  present: string[];
  /** Not copied: a leg was running. */
  refused: Array<{ taskId: string; reason: string }>;
  /** In the target with another log, or read back different: never overwritten. */
  mismatched: Array<{ taskId: string; reason: string }>;
  blobs: number;
  pushConfigs: number;
  /** The records copied (datasets and experiments of the principals migrated). */
  records: RecordsReport;
}

/** SHA-256 of a log as the port returns it, one JSON line per event: equal logs, equal digests. */
export function logDigest(events: readonly StoredEvent[]): string {
  const hash = createHash("sha256");
  for (const event of events) hash.update(`${JSON.stringify(event)}\n`);
  return hash.digest("hex");
}

/** The principals migrated: the one asked for, or every principal owning a task in `from`. */
async function principalsOf(from: Store, options: MigrateOptions): Promise<string[]> {
  if (options.principal !== undefined) return [options.principal];
  if (from.stats === undefined) throw new Error("the source store cannot list its principals (it has no stats)");
  return ((await from.stats({ largest: 0 })).principals ?? []).map((share) => share.principal);
}

/** Every task of `from` the options select, a principal at a time (children included). */
async function* tasksOf(
  from: Store,
  principals: readonly string[],
  options: MigrateOptions,
): AsyncGenerator<TaskRecord> {
  for (const principal of principals) {
    let cursor: string | undefined;
    do {
      const page = await from.listTasks({ principal, limit: 500, ...(cursor === undefined ? {} : { cursor }) });
      for (const task of page.tasks) {
        if (options.sinceMs === undefined || Date.parse(task.updatedAt) >= options.sinceMs) yield task;
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
  }
}

/** Copy `from`'s tasks into `to` (see the module comment). `to` needs `restoreTask`. */
export async function migrateStores(from: Store, to: Store, options: MigrateOptions = {}): Promise<MigrateReport> {
  const restore = to.restoreTask?.bind(to);
  if (restore === undefined) throw new Error("the target store cannot restore tasks (it has no restoreTask)");
  const report: MigrateReport = {
    copied: [],
    present: [],
    refused: [],
    mismatched: [],
    blobs: 0,
    pushConfigs: 0,
    records: { copied: 0, present: 0, mismatched: [] },
  };
  const nowMs = options.nowMs ?? Date.now();
  const concurrency = options.concurrency ?? 8;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
    throw new RangeError(`concurrency must be an integer from 1 to 64, got ${concurrency}`);
  const principals = await principalsOf(from, options);
  const tasks = tasksOf(from, principals, options);
  // Each lane takes the next task as it finishes one (an async generator queues the calls); after
  // a failure the others stop at their next task, and the run fails with the first lane's error.
  let failed = false;
  const lane = async () => {
    try {
      for (let item = await tasks.next(); item.done !== true && !failed; item = await tasks.next()) {
        const task = item.value;
        const outcome = await migrateTask(from, to, restore, task, nowMs, report);
        if (outcome !== "refused" && outcome !== "mismatched") await copyPushConfigs(task.taskId, options, report);
        options.onTask?.(task.taskId, outcome);
      }
    } catch (error) {
      failed = true;
      throw error;
    }
  };
  // Every lane settles before the run ends, failed or not: no write of this run lands after it.
  const lanes = await Promise.allSettled(Array.from({ length: concurrency }, lane));
  const failure = lanes.find((settled) => settled.status === "rejected");
  if (failure !== undefined) throw failure.reason;
  report.records = await migrateRecords(from, to, principals);
  return report;
}

async function migrateTask(
  from: Store,
  to: Store,
  restore: NonNullable<Store["restoreTask"]>,
  task: TaskRecord,
  nowMs: number,
  report: MigrateReport,
): Promise<"copied" | "present" | "refused" | "mismatched"> {
  const { taskId } = task;
  if (isLeaseLive(task.lease, nowMs)) {
    report.refused.push({ taskId, reason: "a leg is running: run again once it has parked or ended" });
    return "refused";
  }
  const events = await from.read(taskId);
  const digest = logDigest(events);
  const existing = await to.read(taskId).catch((error: unknown) => {
    if (isSemaError(error) && error.code === "TaskNotFound") return undefined;
    throw error;
  });
  if (existing !== undefined) {
    if (logDigest(existing) === digest) {
      report.present.push(taskId);
      return "present";
    }
    report.mismatched.push({ taskId, reason: "the target holds another log under this id; left as it is" });
    return "mismatched";
  }
  // Blobs first: content-addressed, so one copied before a kill is simply put again.
  for (const blob of new Set(events.flatMap(blobDigests))) {
    const bytes = await from.getBlob?.(blob);
    if (bytes === undefined) throw new Error(`task ${taskId} references blob ${blob}, which the source does not hold`);
    if (to.putBlob === undefined) throw new Error("the target store keeps no blobs");
    await to.putBlob({ digest: blob, bytes });
    report.blobs++;
  }
  await restore(events);
  if (logDigest(await to.read(taskId)) !== digest) {
    report.mismatched.push({ taskId, reason: "read back from the target, the log differs" });
    return "mismatched";
  }
  report.copied.push(taskId);
  return "copied";
}

async function copyPushConfigs(taskId: string, options: MigrateOptions, report: MigrateReport): Promise<void> {
  const source = options.from?.pushConfigs;
  const target = options.to?.pushConfigs;
  if (source === undefined || target === undefined) return;
  // put replaces a config by (taskId, id): copying one again after a kill changes nothing.
  for (const config of await source.list(taskId)) {
    await target.put(config);
    report.pushConfigs++;
  }
}
