/**
 * `sema run "objective" [--model provider:model-id] [--db path] [--attach file …]`: start a task
 * and stream it; each `--attach` adds an image or a file to the objective.
 */
import { parseArgs } from "node:util";
import { startTask } from "@sema-agent/core";
import { withAttachments } from "../attachments.ts";
import { type CliIo, openBackend, STORE_OPTIONS, storeFlagText, storeLocation, UsageError } from "../context.ts";
import { DEFAULT_AGENT_NAME, defaultAgent } from "../default-agent.ts";
import { driveLeg } from "../drive-leg.ts";
import { openHostMetrics } from "../host-metrics.ts";
import { type HostTracing, hostTracing } from "../host-tracing.ts";
import { modelFromSpec } from "../model-spec.ts";
import { localToolSetup } from "../tool-roots.ts";

export const RUN_OPTIONS = {
  model: { type: "string" },
  ...STORE_OPTIONS,
  "stdin-steers": { type: "boolean" },
  yes: { type: "boolean" },
  attach: { type: "string", multiple: true },
} as const;

export function requireModel(io: CliIo, flag: string | undefined): string {
  const spec = flag ?? io.env.SEMA_MODEL;
  if (spec === undefined || spec === "") {
    throw new UsageError(
      "no model: pass --model provider:model-id (anthropic:…, openai:…, openai-compatible:…, script:file.json) or set SEMA_MODEL",
    );
  }
  return spec;
}

export async function run(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: RUN_OPTIONS, allowPositionals: true });
  const objective = positionals.join(" ").trim();
  if (objective === "") throw new UsageError('usage: sema run "objective" [--model provider:model-id] [--db path]');
  const spec = requireModel(io, values.model);
  const model = modelFromSpec(spec, io.env);
  const backend = await openBackend(io, values);
  // OTLP metrics when the OpenTelemetry variables ask for them; the run writes through the measured store.
  let metrics: Awaited<ReturnType<typeof openHostMetrics>> | undefined;
  let tracing: HostTracing | undefined;
  try {
    const agent = defaultAgent(model, io.cwd, {
      autoApprove: values.yes === true,
      // The working directory is the root, but the store and config files are never written.
      tools: localToolSetup(io, storeLocation(io, values)).options,
    });
    metrics = await openHostMetrics(io, backend.store, "sema", { agents: [agent] });
    const { store } = metrics;
    // Read before the task starts: a wrong OTEL_* variable starts nothing.
    tracing = await hostTracing(io, backend.store, "sema run");
    const taskId = await startTask(store, {
      objective: withAttachments(objective, values.attach ?? [], io.cwd),
      model: spec,
      agent: DEFAULT_AGENT_NAME,
    });
    io.stdout.write(`Task ${taskId} started (model ${spec}, store ${backend.label})\n`);
    return await driveLeg(io, {
      store,
      taskId,
      agent,
      dbFlag: storeFlagText(values),
      stdinSteers: values["stdin-steers"] === true,
      observe: tracing.emit,
      harness: tracing.harness,
    });
  } finally {
    await tracing?.close();
    await metrics?.shutdown();
    await backend.store.close();
  }
}
