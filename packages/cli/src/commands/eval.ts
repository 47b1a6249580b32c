/**
 * `sema eval <injection|dataset|run|compare|show|list> …`: the offline prompt-injection suite, and
 * evaluations of the default agent over datasets (docs/guide/evals.md): datasets kept in the
 * store, experiments that run them as tasks and score them, gates for CI, comparisons.
 */
import { parseArgs } from "node:util";
import { type CliIo, UsageError } from "../context.ts";
import { EVAL_OPTIONS } from "./eval-options.ts";

export const EVAL_USAGE =
  "usage: sema eval injection … | dataset add|list|export … | run <dataset|file.jsonl> … | compare <A> <B> | show <experimentId> | list";

export async function evaluate(argv: string[], io: CliIo): Promise<number> {
  // An option no subcommand knows is refused here, with the usage of them all.
  const { tokens } = parseArgs({ args: argv, options: EVAL_OPTIONS, allowPositionals: true, tokens: true });
  // The subcommand is the first positional, wherever it stands among the options.
  const first = tokens.find((token) => token.kind === "positional");
  const sub = first?.kind === "positional" ? first.value : undefined;
  const rest = first === undefined ? [] : argv.filter((_, i) => i !== first.index);
  switch (sub) {
    case "injection":
      return (await import("./eval-injection.ts")).evalInjection(argv, io);
    case "dataset":
      return (await import("./eval-dataset.ts")).evalDataset(rest, io);
    case "run":
      return (await import("./eval-run.ts")).evalRun(rest, io);
    case "compare":
    case "show":
    case "list":
      return (await import("./eval-results.ts")).evalResults(sub, rest, io);
    default:
      throw new UsageError(EVAL_USAGE);
  }
}
