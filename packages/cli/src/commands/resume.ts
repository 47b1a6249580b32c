/** `sema resume <taskId> [--model …] [--db path]`: run the task's next leg with its model (a fork's `--model`, else the one it was started with). */
import { parseArgs } from "node:util";
import { isSemaError, loadTaskState, requestResume, type Store } from "@sema-agent/core";
import { type CliIo, openBackend, storeFlagText, storeLocation, UsageError } from "../context.ts";
import { defaultAgent } from "../default-agent.ts";
import { driveLeg } from "../drive-leg.ts";
import { type HostTracing, hostTracing } from "../host-tracing.ts";
import { modelFromSpec } from "../model-spec.ts";
import { localToolSetup } from "../tool-roots.ts";
import { RUN_OPTIONS, requireModel } from "./run.ts";

// A resumed task's objective is recorded already: it takes no attachments.
const { attach: _attach, ...RESUME_OPTIONS } = RUN_OPTIONS;

/**
 * The model the task runs on: the one it was created with, or the one a fork changed it to
 * (`sema fork --model`), as its folded state holds it.
 */
export async function recordedModel(store: Store, taskId: string): Promise<string | undefined> {
  return (await loadTaskState(store, taskId)).model;
}

export async function resume(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: RESUME_OPTIONS, allowPositionals: true });
  const [taskId] = positionals;
  if (taskId === undefined) throw new UsageError("usage: sema resume <taskId> [--model provider:model-id] [--db path]");
  const backend = await openBackend(io, values);
  const { store } = backend;
  let tracing: HostTracing | undefined;
  try {
    tracing = await hostTracing(io, store, "sema resume");
    const spec = requireModel(io, values.model ?? (await recordedModel(store, taskId)));
    // Recorded, as a resume through the API is: the log says who resumed a parked task and where
    // its next leg began, so `sema replay` starts that leg where it was started. A task that has
    // ended is reported as such by the leg.
    await requestResume(store, taskId).catch((error: unknown) => {
      if (!isSemaError(error, "TaskFinished")) throw error;
    });
    // A header as sema run prints one: which task, on which model and store.
    io.stdout.write(`Task ${taskId} resumed (model ${spec}, store ${backend.label})\n`);
    return await driveLeg(io, {
      store,
      taskId,
      agent: defaultAgent(modelFromSpec(spec, io.env), io.cwd, {
        autoApprove: values.yes === true,
        // The working directory is the root, but the store and config files are never written.
        tools: localToolSetup(io, storeLocation(io, values)).options,
      }),
      dbFlag: storeFlagText(values),
      stdinSteers: values["stdin-steers"] === true,
      observe: tracing.emit,
      harness: tracing.harness,
    });
  } finally {
    await tracing?.close();
    await store.close();
  }
}
