/**
 * `sema export <taskId> [--with-children] [--out file [--force]] [--db path | --store url]`: the
 * task's log (and its children's) with the bytes of every image and file it references, as one
 * export file (`exportTask`, docs/guide/time-travel.md): on stdout, or written to `--out`. The
 * file is data, written byte for byte as `exportTask` makes it; `sema import` reads it.
 */
import { randomBytes } from "node:crypto";
import { existsSync, linkSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { exportTask } from "@sema-agent/core/time-travel";
import { type CliIo, openStore, STORE_OPTIONS, UsageError } from "../context.ts";
import { terminalSafe } from "../terminal-safe.ts";

const USAGE = "usage: sema export <taskId> [--with-children] [--out file [--force]]";

function exists(name: string): UsageError {
  return new UsageError(`${name} exists: pass --force to replace it`);
}

/**
 * Write `text` to `path` whole or not at all: into a temporary file beside it, then moved into
 * place. Without `force` an existing file is never replaced, even one made while the export ran
 * (the move is then a hard link, which fails on an existing name; where links are not supported,
 * a rename after a last check): false, and nothing written.
 */
export function writeAtomically(path: string, text: string, force: boolean): boolean {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  writeFileSync(temp, text, { flag: "wx" });
  try {
    if (force) {
      renameSync(temp, path);
      return true;
    }
    try {
      linkSync(temp, path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EEXIST") return false;
      if (code !== "EPERM" && code !== "ENOTSUP" && code !== "ENOSYS") throw error;
      if (existsSync(path)) return false;
      renameSync(temp, path);
    }
    return true;
  } finally {
    rmSync(temp, { force: true });
  }
}

/** The counts of the end line, for the line printed after a file is written. */
function counts(text: string): string {
  const end = JSON.parse(text.slice(text.lastIndexOf("\n", text.length - 2) + 1)) as {
    tasks: number;
    events: number;
    blobs: number;
  };
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  return `${plural(end.tasks, "task")}, ${plural(end.events, "event")}, ${plural(end.blobs, "blob")}`;
}

/**
 * `sema export`: see the module comment. Exit 0 with the file written; 2 for a flag that does not
 * fit, or an `--out` file that exists (without `--force`) or cannot be written; 1 for a task not
 * found.
 */
export async function exportCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...STORE_OPTIONS,
      "with-children": { type: "boolean" },
      out: { type: "string" },
      force: { type: "boolean" },
    },
    allowPositionals: true,
  });
  const [taskId, ...extra] = positionals;
  if (taskId === undefined || extra.length > 0) throw new UsageError(USAGE);
  if (values.out === "") throw new UsageError("--out takes a file name");
  if (values.force === true && values.out === undefined)
    throw new UsageError("--force is for --out: stdout is never a file to replace");
  const out = values.out === undefined ? undefined : resolve(io.cwd, values.out);
  // Checked before the store is opened, and again as the file is moved into place.
  if (out !== undefined && values.force !== true && existsSync(out)) throw exists(values.out ?? out);
  const store = await openStore(io, values);
  let text: string;
  try {
    text = await exportTask(store, taskId, { withChildren: values["with-children"] === true });
  } finally {
    await store.close();
  }
  if (out === undefined) {
    io.stdout.write(text);
    return 0;
  }
  let written: boolean;
  try {
    written = writeAtomically(out, text, values.force === true);
  } catch (error) {
    throw new UsageError(`cannot write ${values.out}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!written) throw exists(values.out ?? out);
  io.stdout.write(`${terminalSafe(`Exported task ${taskId} to ${values.out}: ${counts(text)}`)}\n`);
  return 0;
}
