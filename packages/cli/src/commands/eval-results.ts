/**
 * `sema eval compare <A> <B> [--json]`, `sema eval show <experimentId> [--json]`, `sema eval list`:
 * experiments as the store has them (their results read from their tasks).
 */
import { parseArgs } from "node:util";
import { DEFAULT_PRICES } from "@sema-agent/ai-sdk";
import {
  compareExperiments,
  formatComparison,
  formatExperiment,
  listExperiments,
  loadExperiment,
} from "@sema-agent/evals";
import { type CliIo, openStore, UsageError } from "../context.ts";
import { jsonLine, terminalSafe } from "../terminal-safe.ts";
import { LOCAL_PRINCIPAL } from "./eval-dataset.ts";
import { EVAL_RESULTS_OPTIONS } from "./eval-options.ts";

const USAGE = "usage: sema eval compare <experimentA> <experimentB> [--json] | show <experimentId> [--json] | list";

export async function evalResults(action: "compare" | "show" | "list", argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: EVAL_RESULTS_OPTIONS,
    allowPositionals: true,
  });
  const want = action === "compare" ? 2 : action === "show" ? 1 : 0;
  if (positionals.length !== want) throw new UsageError(USAGE);
  const store = await openStore(io, values);
  try {
    const load = (id: string) => loadExperiment(store, LOCAL_PRINCIPAL, id, { prices: DEFAULT_PRICES });
    if (action === "list") {
      for (const e of await listExperiments(store, LOCAL_PRINCIPAL))
        io.stdout.write(
          values.json === true
            ? `${jsonLine(e)}\n`
            : `${terminalSafe(`${e.name}  ${String(e.meta.name) || "-"}  ${String(e.meta.cases)} cases  dataset ${String(e.meta.dataset)}  ${e.createdAt}`)}\n`,
        );
      return 0;
    }
    const [a, b] = positionals as [string, string | undefined];
    if (action === "show") {
      const result = await load(a);
      io.stdout.write(values.json === true ? `${jsonLine(result)}\n` : `${terminalSafe(formatExperiment(result))}\n`);
      return 0;
    }
    const comparison = compareExperiments(await load(a), await load(b as string));
    io.stdout.write(
      values.json === true ? `${jsonLine(comparison)}\n` : `${terminalSafe(formatComparison(comparison))}\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}
