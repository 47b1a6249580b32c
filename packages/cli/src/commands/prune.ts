/**
 * `sema prune [--older-than 30d] [--status s,…] [--principal P] [--dry-run] [--archive dir] [--json]`:
 * delete (or archive, then delete) finished tasks, with their children, that have not changed for
 * an age: the flags' rule, else the `retention` of `sema.config.*`. Prints each task removed and
 * the space given back. A live task is never touched (docs/guide/operating-a-store.md).
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { type CliIo, openBackend, STORE_OPTIONS, UsageError } from "../context.ts";
import { folderSink } from "../retention/archive-sink.ts";
import { loadRetention } from "../retention/config.ts";
import { deletePushConfigs } from "../retention/host-retention.ts";
import { durationSchema, finishedStatusSchema, type RetentionPolicy } from "../retention/policy.ts";
import { type PrunedTask, pruneStore } from "../retention/prune.ts";
import { jsonLine, terminalSafe } from "../terminal-safe.ts";

const USAGE =
  "usage: sema prune [--older-than 30d] [--status completed,failed,cancelled] [--principal P] [--dry-run] [--archive dir] [--json]";

/** The policy of the flags, or of the config when no `--older-than` is given. */
async function policyOf(
  values: { "older-than"?: string | undefined; status?: string | undefined; archive?: string | undefined },
  cwd: string,
): Promise<RetentionPolicy> {
  if (values["older-than"] === undefined) {
    if (values.status !== undefined) throw new UsageError("--status needs --older-than");
    const configured = await loadRetention(cwd);
    if (configured === undefined)
      throw new UsageError(`give --older-than, or set retention in sema.config.*\n${USAGE}`);
    return configured;
  }
  const age = durationSchema.safeParse(values["older-than"]);
  if (!age.success) throw new UsageError(`--older-than ${age.error.issues[0]?.message ?? "is not an age"}`);
  const statuses = values.status?.split(",").map((status) => {
    const parsed = finishedStatusSchema.safeParse(status.trim());
    if (!parsed.success) throw new UsageError(`--status takes completed, failed or cancelled, not "${status}"`);
    return parsed.data;
  });
  return {
    default: {
      olderThan: age.data,
      ...(statuses === undefined ? {} : { statuses }),
      ...(values.archive === undefined ? {} : { action: "archive" as const }),
    },
  };
}

function line(task: PrunedTask, dryRun: boolean): string {
  const verb = dryRun ? `would ${task.action}` : task.action === "archive" ? "archived" : "deleted";
  const size =
    task.tasks === undefined ? "" : `  ${task.tasks} task(s), ${task.events} events, ${task.logBytes} bytes of log`;
  return terminalSafe(`${verb}  ${task.taskId}  ${task.status.padEnd(9)}  ${task.principal}  ${task.updatedAt}${size}`);
}

/** `sema prune`: see the module comment. Exit 0 (nothing due is no error); 2 for a flag or config that does not fit. */
export async function prune(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...STORE_OPTIONS,
      "older-than": { type: "string" },
      status: { type: "string" },
      principal: { type: "string" },
      "dry-run": { type: "boolean" },
      archive: { type: "string" },
      json: { type: "boolean" },
    },
  });
  if (positionals.length > 0) throw new UsageError(USAGE);
  if (values.archive === "") throw new UsageError("--archive takes a folder");
  const policy = await policyOf(values, io.cwd);
  const archiveDir = values.archive ?? policy.archiveDir ?? ".sema/archive";
  const dryRun = values["dry-run"] === true;
  const backend = await openBackend(io, values);
  const store = backend.store;
  try {
    const pushes = await backend.pushConfigs();
    const report = await pruneStore(store, {
      // A deleted task's A2A push configs go with it: they would never be delivered again.
      onDeleted: (taskIds) => deletePushConfigs(pushes, taskIds),
      policy,
      nowMs: Date.now(),
      dryRun,
      archive: folderSink(resolve(io.cwd, archiveDir)),
      ...(values.principal === undefined ? {} : { principal: values.principal }),
    });
    if (values.json === true) {
      io.stdout.write(`${jsonLine({ dryRun, ...report })}\n`);
      return 0;
    }
    for (const task of report.removed) io.stdout.write(`${line(task, dryRun)}\n`);
    for (const skipped of report.skipped)
      io.stdout.write(`${terminalSafe(`skipped  ${skipped.taskId}  ${skipped.reason}`)}\n`);
    const events = report.removed.reduce((sum, task) => sum + (task.events ?? 0), 0);
    const summary = dryRun
      ? `${report.removed.length} task(s) due; nothing changed (--dry-run)`
      : `${report.removed.length} task(s) removed, ${events} events`;
    const space =
      report.reclaimed === undefined
        ? ""
        : `; store ${report.reclaimed.bytesBefore} → ${report.reclaimed.bytesAfter} bytes`;
    io.stdout.write(`${summary}${space}\n`);
    return 0;
  } finally {
    await backend.close();
  }
}
