/**
 * `sema eval run <dataset|file.jsonl> [--model provider:model-id] [--scorer name…] [--concurrency N]
 * [--name label] [--gate "<scorer> >= 0.9"]… [--resume experimentId] [--yes] [--json]`: run every
 * case as a task of the default agent (the one sema run builds), score it, print the table, and
 * exit 1 when a gate fails — a CI step. Ctrl-C stops it; --resume goes on where it stopped.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_PRICES } from "@sema-agent/ai-sdk";
import { ConfigError } from "@sema-agent/core/protocol";
import {
  checkGates,
  type Dataset,
  formatExperiment,
  type Gate,
  loadDataset,
  parseDataset,
  parseGate,
  runExperiment,
} from "@sema-agent/evals";
import { type CliIo, openStore, storeFlagText, storeLocation, UsageError } from "../context.ts";
import { DEFAULT_AGENT_NAME, defaultAgent } from "../default-agent.ts";
import { modelFromSpec } from "../model-spec.ts";
import { jsonLine, terminalSafe } from "../terminal-safe.ts";
import { localToolSetup } from "../tool-roots.ts";
import { LOCAL_PRINCIPAL, readDatasetFile } from "./eval-dataset.ts";
import { EVAL_RUN_OPTIONS } from "./eval-options.ts";
import { cliScorer } from "./eval-scorers.ts";
import { requireModel } from "./run.ts";

const USAGE =
  'usage: sema eval run <dataset|file.jsonl> [--model provider:model-id] [--scorer name…] [--concurrency N] [--name label] [--gate "<scorer> >= 0.9"]… [--resume experimentId] [--yes] [--json]';

function gateOf(text: string): Gate {
  try {
    return parseGate(text);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(`--gate ${error.message.replace(/^gate: /, "")}`);
    throw error;
  }
}

export async function evalRun(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: EVAL_RUN_OPTIONS,
    allowPositionals: true,
  });
  const [source, ...extra] = positionals;
  if (source === undefined || extra.length > 0) throw new UsageError(USAGE);
  // Every flag is checked before anything runs.
  const scorers = (values.scorer ?? ["exact-match"]).map(cliScorer);
  const gates = (values.gate ?? []).map(gateOf);
  const names = scorers.map((s) => s.name);
  for (const gate of gates)
    if (!names.includes(gate.scorer))
      throw new UsageError(`--gate ${gate.scorer}: not a scorer of this run (${names.join(", ")})`);
  const concurrency = values.concurrency === undefined ? 4 : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256)
    throw new UsageError(`--concurrency takes an integer from 1 to 256, got ${values.concurrency}`);
  const spec = requireModel(io, values.model);
  const model = modelFromSpec(spec, io.env);
  // A path to a file (it exists, or ends in .jsonl) is read; anything else names a saved dataset.
  const isFile = source.endsWith(".jsonl") || existsSync(resolve(io.cwd, source));
  const parsed = isFile ? await parseDataset(readDatasetFile(io, source)) : undefined;

  const store = await openStore(io, values);
  try {
    const dataset: Dataset & { name?: string; version?: number } =
      parsed ?? (await loadDataset(store, LOCAL_PRINCIPAL, source));
    const agent = defaultAgent(model, io.cwd, {
      autoApprove: values.yes === true,
      tools: localToolSetup(io, storeLocation(io, values)).options,
    });
    const result = await runExperiment({
      store,
      agent,
      agentName: DEFAULT_AGENT_NAME,
      model: spec,
      dataset,
      scorers,
      principal: LOCAL_PRINCIPAL,
      concurrency,
      prices: DEFAULT_PRICES,
      ...(values.name === undefined ? {} : { name: values.name }),
      ...(values.resume === undefined ? {} : { experimentId: values.resume }),
      ...(io.interrupt === undefined ? {} : { signal: io.interrupt }),
      onCase: () => io.stderr.write("."),
    });
    io.stderr.write("\n");
    const failures = checkGates(result, gates);
    if (values.json === true) io.stdout.write(`${jsonLine({ ...result, gates: failures })}\n`);
    else {
      io.stdout.write(`${terminalSafe(formatExperiment(result))}\n`);
      for (const failure of failures) io.stdout.write(`${terminalSafe(`gate failed: ${failure.message}`)}\n`);
    }
    if (io.interrupt?.aborted === true) {
      io.stderr.write(
        `Stopped. Go on with: sema eval run ${terminalSafe(source)} --resume ${result.experimentId}${storeFlagText(values)}\n`,
      );
      return 130;
    }
    return failures.length > 0 ? 1 : 0;
  } finally {
    await store.close();
  }
}
