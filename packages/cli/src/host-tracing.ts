/**
 * Traces of the tasks a command runs (`sema run`, `resume`, `serve`, `worker`), exported over
 * OTLP when the standard OpenTelemetry variables ask for it (@sema-agent/otel/setup). Unset, no
 * OpenTelemetry module is loaded, not even `@sema-agent/otel` (module-graph.test.ts): it is
 * imported only when a variable that can ask for traces is given, and `tracingFromEnv` decides. A collector that is down never fails or
 * slows a task: the tracer exports off the leg's path, its failures are reported once, and the
 * closing flush is bounded.
 */
import type { Emit, HarnessOptions, Store } from "@sema-agent/core";
import type { CliIo } from "./context.ts";
import { terminalSafe } from "./terminal-safe.ts";

/** A command's tracing: the sink to add to its legs' emit (none when off), and its bounded close. */
export interface HostTracing {
  emit: Emit | undefined;
  /**
   * The rest of the tracer's harness options, for every leg the command runs (empty when off):
   * `childEmit`, so children run inside a leg are traced live, and `traceparentOf`, so a tool
   * call's A2A and MCP requests carry its span.
   */
  harness: Pick<HarnessOptions, "childEmit" | "traceparentOf">;
  /** Where the traces go, for the start line (undefined when off). */
  target: string | undefined;
  /** Flushes and closes the exporter, waiting at most the export timeout (5 s at most). */
  close(): Promise<void>;
}

const OFF: HostTracing = { emit: undefined, harness: {}, target: undefined, close: async () => {} };

/** The closing flush waits at most this long (or the export timeout, if shorter). */
const CLOSE_BOUND_MS = 5000;

/** Whether a variable may ask for traces: a superset of what `tracingFromEnv` decides, read without loading it. */
function mayWantTraces(io: CliIo): boolean {
  const given = (value: string | undefined) => value !== undefined && value.trim() !== "";
  return (
    given(io.env.OTEL_EXPORTER_OTLP_ENDPOINT) ||
    given(io.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) ||
    given(io.env.OTEL_TRACES_EXPORTER)
  );
}

/** Tracing for `who` over `store` from `io.env`; a wrong variable is a ConfigError (exit 2). */
export async function hostTracing(io: CliIo, store: Store, who: string): Promise<HostTracing> {
  if (!mayWantTraces(io)) return OFF;
  const { tracingFromEnv } = await import("@sema-agent/otel/setup");
  const tracing = await tracingFromEnv({ env: io.env });
  if (tracing === undefined) return OFF;
  const { url, protocol, timeoutMs } = tracing.config;
  let reported = false;
  const tracer = tracing.live(store, (error) => {
    // A collector that is down fails every export: one line says so, not one per batch.
    if (reported) return;
    reported = true;
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(
      `${terminalSafe(`${who}: traces not exported to ${url}: ${message} (further failures are not reported)`)}\n`,
    );
  });
  const harness: HostTracing["harness"] = {};
  if (tracer.harness.childEmit !== undefined) harness.childEmit = tracer.harness.childEmit;
  if (tracer.harness.traceparentOf !== undefined) harness.traceparentOf = tracer.harness.traceparentOf;
  return {
    emit: tracer.emit,
    harness,
    target: `${url} (${protocol})`,
    async close() {
      const boundMs = Math.min(timeoutMs, CLOSE_BOUND_MS);
      const sent = await tracing.shutdown({ timeoutMs: boundMs });
      if (!sent && !reported)
        io.stderr.write(`${terminalSafe(`${who}: traces not all exported to ${url} within ${boundMs} ms`)}\n`);
    },
  };
}

/** `first`, then `second` when there is one: a leg's emit with tracing beside it. */
export function withTracing(first: Emit, second: Emit | undefined): Emit {
  if (second === undefined) return first;
  return (event) => {
    first(event);
    second(event);
  };
}
