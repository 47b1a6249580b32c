/**
 * `sema trace <taskId> [--endpoint URL] [--protocol http/json|http/protobuf] [--db path | --store url]`:
 * rebuild a task's trace from its log (the stored times, the same span ids a live tracer used)
 * and export it over OTLP, to the flag's endpoint or the one the OTEL_* variables name. Any task
 * that ever ran: finished, parked, crashed, or traced by no one at the time. The sampler is not
 * applied: the task was asked for by name.
 */
import { parseArgs } from "node:util";
import { type CliIo, openStore, STORE_OPTIONS, UsageError } from "../context.ts";
import { terminalSafe } from "../terminal-safe.ts";

export async function trace(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...STORE_OPTIONS, endpoint: { type: "string" }, protocol: { type: "string" } },
    allowPositionals: true,
  });
  const [taskId] = positionals;
  if (taskId === undefined)
    throw new UsageError("usage: sema trace <taskId> [--endpoint URL] [--protocol http/protobuf|http/json]");
  const { tracingFromEnv } = await import("@sema-agent/otel/setup");
  const overrides = {
    ...(values.endpoint === undefined ? {} : { endpoint: values.endpoint }),
    ...(values.protocol === undefined ? {} : { protocol: values.protocol }),
  };
  const tracing = await tracingFromEnv({ env: io.env, overrides, sample: false });
  if (tracing === undefined)
    throw new UsageError(
      "no OTLP endpoint to export to: pass --endpoint http://collector:4318 or set OTEL_EXPORTER_OTLP_ENDPOINT (OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none turn the variables off)",
    );
  const store = await openStore(io, values);
  try {
    // A clear TaskNotFound for an unknown id, rather than an empty trace.
    await store.getTask(taskId);
    const { traceIdOf, traceTask } = await import("@sema-agent/otel");
    const { url, protocol } = tracing.config;
    let spans: number;
    try {
      spans = (await traceTask(store, taskId, tracing.traceOptions)).length;
    } catch (error) {
      io.stderr.write(
        `${terminalSafe(`sema trace: the trace was not exported to ${url}: ${error instanceof Error ? error.message : String(error)}`)}\n`,
      );
      return 1;
    } finally {
      await tracing.shutdown();
    }
    io.stdout.write(`Trace ${traceIdOf(taskId)}: ${spans} spans exported to ${url} (${protocol})\n`);
    return 0;
  } finally {
    await store.close();
  }
}
