/** `sema tasks [--json] [--db path]`: the tasks in the store, newest first; `--json` is one task a line. */
import { parseArgs } from "node:util";
import type { Store, TaskRecord } from "@sema-agent/core";
import { type CliIo, openStore, STORE_OPTIONS } from "../context.ts";
import { jsonLine, terminalSafe } from "../terminal-safe.ts";

async function objectiveOf(store: Store, taskId: string): Promise<string> {
  const [created] = await store.read(taskId, { limit: 1 });
  return created?.type === "task_created" ? created.objective : "";
}

/** The stable JSON form of one task for scripts. */
export function taskLine(record: TaskRecord, objective: string): Record<string, unknown> {
  const { summary } = record;
  return {
    taskId: record.taskId,
    status: summary.status,
    ...(summary.parkedReason === undefined ? {} : { parkedReason: summary.parkedReason }),
    objective,
    principal: record.principal,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    lastSeq: record.lastSeq,
    turns: summary.sessionSeq,
    usage: summary.usage,
  };
}

export async function tasks(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { ...STORE_OPTIONS, json: { type: "boolean" }, principal: { type: "string" } },
  });
  const store = await openStore(io, values);
  try {
    let cursor: string | undefined;
    do {
      const page = await store.listTasks({
        principal: values.principal ?? "local",
        limit: 200,
        ...(cursor === undefined ? {} : { cursor }),
      });
      for (const record of page.tasks) {
        const objective = await objectiveOf(store, record.taskId);
        if (values.json === true) io.stdout.write(`${jsonLine(taskLine(record, objective))}\n`);
        else {
          const status =
            record.summary.parkedReason === undefined ? record.summary.status : `parked:${record.summary.parkedReason}`;
          const flat = objective.replace(/\s+/g, " ");
          io.stdout.write(
            `${terminalSafe(`${record.taskId}  ${status.padEnd(16)}  ${record.updatedAt}  ${flat.length > 60 ? `${flat.slice(0, 59)}…` : flat}`)}\n`,
          );
        }
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return 0;
  } finally {
    await store.close();
  }
}
