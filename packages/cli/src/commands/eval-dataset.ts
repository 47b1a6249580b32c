/**
 * `sema eval dataset add <name> <file.jsonl> | add <name> --from-task <id>… | list | export <name>`:
 * datasets kept in the store under a name, each add a new version (docs/guide/evals.md#datasets).
 * A file is checked line by line before anything is written.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  datasetFromTasks,
  formatDataset,
  listDatasets,
  loadDataset,
  parseDataset,
  saveDataset,
} from "@sema-agent/evals";
import { type CliIo, openStore, UsageError } from "../context.ts";
import { jsonLine, terminalSafe } from "../terminal-safe.ts";
import { EVAL_DATASET_OPTIONS } from "./eval-options.ts";

const USAGE =
  "usage: sema eval dataset add <name> <file.jsonl> | add <name> --from-task <taskId>… | list [--json] | export <name> [--version N]";

/** Whose datasets these are: the CLI's local principal, as for sema run's tasks. */
export const LOCAL_PRINCIPAL = "local";

/** Read a dataset file, or `UsageError` saying it cannot be read. */
export function readDatasetFile(io: CliIo, path: string): string {
  try {
    return readFileSync(resolve(io.cwd, path), "utf8");
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export async function evalDataset(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: EVAL_DATASET_OPTIONS,
    allowPositionals: true,
  });
  const [action, name, file, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(USAGE);
  switch (action) {
    case "add": {
      const fromTasks = values["from-task"] ?? [];
      if (name === undefined || (file === undefined) === (fromTasks.length === 0)) throw new UsageError(USAGE);
      // The file is read and checked before the store is opened: a bad line writes nothing.
      const parsed = file === undefined ? undefined : await parseDataset(readDatasetFile(io, file));
      const store = await openStore(io, values);
      try {
        const dataset = parsed ?? (await datasetFromTasks(store, fromTasks, { principal: LOCAL_PRINCIPAL }));
        const saved = await saveDataset(store, LOCAL_PRINCIPAL, name, dataset);
        io.stdout.write(
          `${terminalSafe(`Dataset ${saved.name} version ${saved.version}: ${saved.cases.length} cases (sha256 ${saved.digest.slice(0, 12)}…)`)}\n`,
        );
        return 0;
      } finally {
        await store.close();
      }
    }
    case "list": {
      if (name !== undefined) throw new UsageError(USAGE);
      const store = await openStore(io, values);
      try {
        const datasets = await listDatasets(store, LOCAL_PRINCIPAL);
        for (const d of datasets)
          io.stdout.write(
            values.json === true
              ? `${jsonLine(d)}\n`
              : `${terminalSafe(`${d.name}  version ${d.version}  ${String(d.meta.cases)} cases  ${d.createdAt}`)}\n`,
          );
        if (datasets.length === 0 && values.json !== true) io.stdout.write("No datasets.\n");
        return 0;
      } finally {
        await store.close();
      }
    }
    case "export": {
      if (name === undefined || file !== undefined) throw new UsageError(USAGE);
      const version = values.version === undefined ? undefined : Number(values.version);
      if (version !== undefined && !(Number.isSafeInteger(version) && version >= 1))
        throw new UsageError(`--version takes a positive integer, got ${values.version}`);
      const store = await openStore(io, values);
      try {
        const dataset = await loadDataset(store, LOCAL_PRINCIPAL, name, version);
        // Data, written as it is (a case's text may hold anything; it is JSON-escaped).
        io.stdout.write(formatDataset(dataset.cases));
        return 0;
      } finally {
        await store.close();
      }
    }
    default:
      throw new UsageError(USAGE);
  }
}
