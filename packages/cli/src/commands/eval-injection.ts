/**
 * `sema eval injection [--model provider:model-id] [--suite name]`: the offline prompt-injection
 * suite (@sema-agent/evals). Without --model it runs the scripted models (obedient, the worst case;
 * task-following, the utility baseline); with it, that model. Prints the table.
 */
import { parseArgs } from "node:util";
import { DEFAULT_SUITES, formatTable, modelChoice, runInjectionSuite, SCRIPTED_MODELS } from "@sema-agent/evals";
import { type CliIo, UsageError } from "../context.ts";
import { modelFromSpec } from "../model-spec.ts";
import { EVAL_INJECTION_OPTIONS } from "./eval-options.ts";

const USAGE_LINE =
  "usage: sema eval injection [--model provider:model-id] [--suite mailbox|workspace|banking|limits|all]";

export async function evalInjection(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: EVAL_INJECTION_OPTIONS,
    allowPositionals: true,
  });
  if (positionals.length !== 1 || positionals[0] !== "injection") throw new UsageError(USAGE_LINE);
  const models = values.model === undefined ? SCRIPTED_MODELS : [modelChoice(modelFromSpec(values.model, io.env))];
  const suites = values.suite ?? DEFAULT_SUITES;
  let report: Awaited<ReturnType<typeof runInjectionSuite>>;
  try {
    report = await runInjectionSuite({
      models,
      suites,
      // A real model's runs take seconds each: show that it is working.
      ...(values.model === undefined ? {} : { onResult: () => io.stderr.write(".") }),
    });
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("no suite ")) throw new UsageError(error.message);
    throw error;
  }
  if (values.model !== undefined) io.stderr.write("\n");
  io.stdout.write(`${formatTable(report)}\n`);
  const failed = report.results.filter((r) => r.error !== undefined);
  if (failed.length > 0)
    io.stderr.write(`${failed.length} runs failed (counted as not reaching the goal): ${failed[0]?.error}\n`);
  return 0;
}
