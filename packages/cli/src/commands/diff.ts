/**
 * `sema diff <taskA> <taskB> [--json] [--db path | --store url]`: two tasks' trajectories side by
 * side from the steps they share, the first divergence marked, each side's tokens and (for models
 * with a list price) cost (`diffTasks`, docs/guide/time-travel.md). The exit code is diff(1)'s: 0 the same, 1 different, 2 trouble.
 */
import { parseArgs } from "node:util";
import { DEFAULT_PRICES } from "@sema-agent/ai-sdk";
import { diffTasks, formatTaskDiff } from "@sema-agent/core/time-travel";
import { type CliIo, openStore, reportError, STORE_OPTIONS, UsageError } from "../context.ts";
import { jsonLine, terminalSafe } from "../terminal-safe.ts";

const USAGE = "usage: sema diff <taskA> <taskB> [--json]";

/** `sema diff`: see the module comment; a task not found is trouble too (2), as a missing file is for diff(1). */
export async function diff(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...STORE_OPTIONS, json: { type: "boolean" } },
    allowPositionals: true,
  });
  const [a, b, ...extra] = positionals;
  if (a === undefined || b === undefined || extra.length > 0) throw new UsageError(USAGE);
  try {
    const store = await openStore(io, values);
    try {
      // Costed at the vendors' list prices, as `sema usage` and budgets are under sema.
      const result = await diffTasks(store, a, b, { prices: DEFAULT_PRICES });
      io.stdout.write(`${values.json === true ? jsonLine(result) : terminalSafe(formatTaskDiff(result))}\n`);
      return result.identical ? 0 : 1;
    } finally {
      await store.close();
    }
  } catch (error) {
    // 1 means "different": any failure is reported as one, with 2.
    reportError(io, error);
    return 2;
  }
}
