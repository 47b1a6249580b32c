/**
 * `sema import <file|-> [--principal P] [--json] [--db path | --store url]`: read an export file
 * (`sema export`; `-` reads it from stdin) into the store, each task under a fresh id
 * (`importTask`, docs/guide/time-travel.md). The whole file is checked before the store is even
 * opened: a file cut short, edited or malformed is refused with the line and the reason, and
 * nothing is written.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { type ImportResult, importTask, parseExport } from "@sema-agent/core/time-travel";
import { type CliIo, openStore, STORE_OPTIONS, storeFlagText, UsageError } from "../context.ts";
import { jsonLine, terminalSafe } from "../terminal-safe.ts";

const USAGE = "usage: sema import <file|-> [--principal P] [--json]";

/** The export file's text: the file named, or all of stdin for `-`. */
async function readExport(io: CliIo, file: string): Promise<string> {
  if (file !== "-") {
    try {
      return readFileSync(resolve(io.cwd, file), "utf8");
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (io.stdin === undefined) throw new UsageError("sema import -: there is no standard input to read");
  if (io.stdin.isTTY === true)
    throw new UsageError(
      "sema import -: standard input is a terminal; pipe an export file in (sema export … | sema import -)",
    );
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

/** What a person reads: the new ids, task by task, and how to replay or run on the root. */
export function importText(result: ImportResult, status: string, storeFlags: string): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const lines = [
    `Imported task ${result.sourceTaskId} as ${result.taskId}: ${plural(result.tasks.length, "task")}, ${plural(result.events, "event")}, ${plural(result.blobs, "blob")}`,
  ];
  for (const task of result.tasks) lines.push(`  ${task.from} → ${task.to}`);
  lines.push(`Replay it with: sema replay ${result.taskId}${storeFlags}`);
  if (status === "parked") lines.push(`Run it on with: sema resume ${result.taskId}${storeFlags}`);
  return lines.join("\n");
}

/**
 * `sema import`: see the module comment. Exit 0 with the tasks written; 2 for a flag that does
 * not fit, a file that cannot be read, or a file refused (`InvalidInput`: the line and why).
 */
export async function importCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...STORE_OPTIONS, principal: { type: "string" }, json: { type: "boolean" } },
    allowPositionals: true,
  });
  const [file, ...extra] = positionals;
  if (file === undefined || extra.length > 0) throw new UsageError(USAGE);
  if (values.principal !== undefined && values.principal.trim() === "")
    throw new UsageError("--principal takes a principal's name, got an empty one");
  const text = await readExport(io, file);
  // The whole file is checked before the store is opened: a refused file leaves no trace there.
  await parseExport(text);
  const store = await openStore(io, values);
  try {
    const result = await importTask(store, text, values.principal === undefined ? {} : { principal: values.principal });
    if (values.json === true) io.stdout.write(`${jsonLine(result)}\n`);
    else {
      const { summary } = await store.getTask(result.taskId);
      io.stdout.write(`${terminalSafe(importText(result, summary.status, storeFlagText(values)))}\n`);
    }
    return 0;
  } finally {
    await store.close();
  }
}
