/**
 * The official OTLP/HTTP span exporter of the configured encoding, loaded only when asked for
 * (`@opentelemetry/exporter-trace-otlp-proto` or `-http`). Its connections never keep the process
 * alive: a host that is done exits even while an export waits on a collector that does not answer
 * (the exporter's own timeout still ends that request, and its retries of a refused connection end
 * within the same timeout).
 */
import type { Agent, ClientRequest, ClientRequestArgs } from "node:http";
import type { Duplex } from "node:stream";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { OtlpTraceConfig } from "./otlp-config.ts";

type AgentClass = typeof Agent;

/** An agent whose sockets are unreferenced from the start, also when a kept-alive one is reused. */
function quietAgent(Base: AgentClass): Agent {
  class QuietAgent extends Base {
    override createConnection(
      options: ClientRequestArgs,
      callback?: (err: Error | null, stream: Duplex) => void,
    ): Duplex | null | undefined {
      const socket = super.createConnection(options, callback);
      (socket as { unref?: () => void } | null | undefined)?.unref?.();
      return socket;
    }
    override reuseSocket(socket: Duplex, _request: ClientRequest): void {
      // The default refs the socket again for its next request.
      (socket as { unref?: () => void }).unref?.();
    }
  }
  return new QuietAgent({ keepAlive: true });
}

/** The exporter for `config`: protobuf or JSON over HTTP, to `config.url`. */
export async function createOtlpExporter(config: OtlpTraceConfig): Promise<SpanExporter> {
  const { OTLPTraceExporter } =
    config.protocol === "http/json"
      ? await import("@opentelemetry/exporter-trace-otlp-http")
      : await import("@opentelemetry/exporter-trace-otlp-proto");
  type Options = NonNullable<ConstructorParameters<typeof OTLPTraceExporter>[0]>;
  const options: Options = {
    url: config.url,
    headers: config.headers,
    timeoutMillis: config.timeoutMs,
    // The OpenTelemetry docs ask for a factory to import node:http itself (so an instrumentation of it applies).
    httpAgentOptions: async (protocol: string) =>
      quietAgent(protocol === "http:" ? (await import("node:http")).Agent : (await import("node:https")).Agent),
  };
  if (config.compression === "gzip") options.compression = "gzip" as NonNullable<Options["compression"]>;
  return new OTLPTraceExporter(options);
}
