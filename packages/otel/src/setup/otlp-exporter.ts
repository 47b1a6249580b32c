/**
 * The official OTLP/HTTP span exporter of the configured encoding, loaded only when asked for
 * (`@opentelemetry/exporter-trace-otlp-proto` or `-http`). Its connections never keep the process
 * alive: a host that is done exits even while an export waits on a collector that does not answer
 * (the exporter's own timeout still ends that request, and its retries of a refused connection end
 * within the same timeout). While an export is awaited, `HeldExporter` keeps the process up.
 */
import type { Agent, ClientRequest, ClientRequestArgs } from "node:http";
import type { Duplex } from "node:stream";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import { ConfigError, type ConfigProblem } from "@sema-agent/core/protocol";
import type { OtlpTraceConfig } from "./otlp-config.ts";

type AgentClass = typeof Agent;

/** An agent whose sockets are unreferenced from the start, also when a kept-alive one is reused. */
function quietAgent(Base: AgentClass, tls: Partial<Record<"ca" | "cert" | "key", Buffer>>): Agent {
  class QuietAgent extends Base {
    override createConnection(
      options: ClientRequestArgs,
      callback?: (err: Error | null, stream: Duplex) => void,
    ): Duplex | null | undefined {
      const socket = super.createConnection(options, callback);
      (socket as { unref?: () => void } | null | undefined)?.unref?.();
      return socket;
    }
    override reuseSocket(socket: Duplex, request: ClientRequest): void {
      super.reuseSocket(socket, request);
      // The default refs the socket again for its next request.
      (socket as { unref?: () => void }).unref?.();
    }
  }
  return new QuietAgent({ keepAlive: true, ...tls });
}

/** The PEM files the TLS variables name, read now: an unreadable one is a ConfigError naming it. */
async function tlsFiles(config: OtlpTraceConfig): Promise<Partial<Record<"ca" | "cert" | "key", Buffer>>> {
  const { readFile } = await import("node:fs/promises");
  const files: Partial<Record<"ca" | "cert" | "key", Buffer>> = {};
  const problems: ConfigProblem[] = [];
  for (const key of ["ca", "cert", "key"] as const) {
    const named = config.tls[key];
    if (named === undefined) continue;
    try {
      files[key] = await readFile(named.path);
    } catch (error) {
      problems.push({
        path: named.variable,
        message: `names ${named.path}, which cannot be read: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  }
  if (problems.length > 0) throw new ConfigError("the OpenTelemetry settings", problems);
  return files;
}

/** The exporter for `config`: protobuf or JSON over HTTP, to `config.url`. */
export async function createOtlpExporter(config: OtlpTraceConfig): Promise<SpanExporter> {
  const tls = await tlsFiles(config);
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
      protocol === "http:"
        ? quietAgent((await import("node:http")).Agent, {})
        : quietAgent((await import("node:https")).Agent, tls),
  };
  if (config.compression === "gzip") options.compression = "gzip" as NonNullable<Options["compression"]>;
  return new OTLPTraceExporter(options);
}
