/**
 * `sema stats [--principal P] [--largest N] [--json]`: how big the store is: tasks by status,
 * events, bytes of logs and blobs, the store's own size, the largest tasks and each principal's
 * share (`Store.stats`).
 */
import { parseArgs } from "node:util";
import { type CliIo, openStore, STORE_OPTIONS, UsageError } from "../context.ts";
import { jsonLine, terminalSafe } from "../terminal-safe.ts";

/** `sema stats`: see the module comment. Exit 0; 2 for a flag that does not fit or a store that cannot measure itself. */
export async function stats(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...STORE_OPTIONS,
      principal: { type: "string" },
      largest: { type: "string" },
      json: { type: "boolean" },
    },
  });
  if (positionals.length > 0) throw new UsageError("usage: sema stats [--principal P] [--largest N] [--json]");
  const largest = values.largest === undefined ? 10 : Number(values.largest);
  if (!Number.isInteger(largest) || largest < 0 || largest > 1000)
    throw new UsageError("--largest takes a whole number from 0 to 1000");
  const store = await openStore(io, values);
  try {
    if (store.stats === undefined) throw new UsageError("this store cannot measure itself");
    const measured = await store.stats({
      largest,
      ...(values.principal === undefined ? {} : { principal: values.principal }),
    });
    if (values.json === true) {
      io.stdout.write(`${jsonLine(measured)}\n`);
      return 0;
    }
    const counts = Object.entries(measured.tasks)
      .map(([status, n]) => `${status} ${n}`)
      .join(", ");
    const out = [
      `tasks: ${counts}`,
      `events: ${measured.events ?? 0} (${measured.logBytes ?? 0} bytes of log)`,
      `blobs: ${measured.blobs} (${measured.blobBytes} bytes)`,
    ];
    if (measured.storeBytes !== undefined) out.push(`store: ${measured.storeBytes} bytes`);
    if ((measured.largest ?? []).length > 0) out.push("largest tasks:");
    for (const task of measured.largest ?? [])
      out.push(
        `  ${task.taskId}  ${task.status.padEnd(9)}  ${task.principal}  ${task.events} events, ${task.logBytes} bytes`,
      );
    if (values.principal === undefined && (measured.principals ?? []).length > 0) out.push("principals:");
    if (values.principal === undefined)
      for (const share of measured.principals ?? [])
        out.push(`  ${share.principal}  ${share.tasks} tasks, ${share.events} events, ${share.logBytes} bytes`);
    io.stdout.write(`${out.map((text) => terminalSafe(text)).join("\n")}\n`);
    return 0;
  } finally {
    await store.close();
  }
}
