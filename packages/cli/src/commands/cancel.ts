/** `sema cancel <taskId> [--reason text] [--db path]`: end a task for good; a running leg stops at once. */
import { parseArgs } from "node:util";
import { cancel as cancelTask } from "@sema-agent/core";
import { type CliIo, openStore, STORE_OPTIONS, UsageError } from "../context.ts";

export async function cancel(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...STORE_OPTIONS, reason: { type: "string" } },
    allowPositionals: true,
  });
  const [taskId] = positionals;
  if (taskId === undefined) throw new UsageError("usage: sema cancel <taskId> [--reason text]");
  const store = await openStore(io, values);
  try {
    // A task that has ended (completed, failed, cancelled) is refused by core: one line, exit 1.
    await cancelTask(store, taskId, values.reason === undefined ? {} : { reason: values.reason });
    io.stdout.write(`Task ${taskId} cancelled.\n`);
    return 0;
  } finally {
    await store.close();
  }
}
