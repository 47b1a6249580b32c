/**
 * `sema serve [--host 127.0.0.1] [--port 7777] [--workers N] [--max-per-principal N] [--db path | --store url]
 * [--workspaces .sema/workspaces] [--workspace-per principal|task]`: the
 * HTTP/SSE API and a pool of workers in one process over the store — the SQLite file by default
 * (the embedded default), or PostgreSQL (`--store postgres://…` or `SEMA_STORE_URL`) shared by
 * many API nodes (`--workers 0`) and worker nodes (`sema worker`). Agents come from
 * sema.config.ts/.js/.mjs/.json in the working directory, or the default agent on --model.
 * The built-in file tools work in a workspace per principal (or per task) under `--workspaces`,
 * which may contain neither the store nor the config. On the first start it creates a token for principal `local` with every role and prints it once.
 * `--metrics` serves `GET /metrics` (Prometheus text, for a token with the `metrics` role); the
 * OpenTelemetry variables export metrics over OTLP. `--public-url` is the origin the A2A agent card
 * advertises (set it behind a reverse proxy; never taken from a request's Host). `--protocols`
 * (or `protocols` of the config) picks what is served beside `/v1` (default all: A2A, MCP, AG-UI,
 * the AI SDK UI stream, the console); each one's modules are loaded only when it is picked.
 * `--access-log` prints one line per request (method, path without its query, status, ms). A port
 * in use is one line ("use --port"), found before the first token is minted.
 */
import { parseArgs } from "node:util";
import { protocolNames } from "@sema-agent/server";
import { type AccessLogEntry, serve as startServing } from "@sema-agent/server/node";
import type { CliIo } from "../context.ts";
import { storeFlagText, UsageError } from "../context.ts";
import { openHostMetrics } from "../host-metrics.ts";
import { reportTo, untilInterrupted } from "../host-options.ts";
import { type HostTracing, hostTracing } from "../host-tracing.ts";
import { hostRetention } from "../retention/host-retention.ts";
import { openServedHost, SERVED_OPTIONS } from "../served-host.ts";
import { loadProtocols, PROTOCOL_NAMES, parseProtocolsFlag } from "../served-protocols.ts";
import { terminalSafe } from "../terminal-safe.ts";

/** A port that cannot be bound, as one line that says what to do (no Node stack). */
export function portTrouble(error: unknown, port: number): UsageError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "EADDRINUSE") return new UsageError(`port ${port} is in use — use --port`);
  if (code === "EACCES") return new UsageError(`port ${port} needs privileges this user lacks — use --port`);
  return undefined;
}

/** `--access-log`: one short line per request on stdout, method, path, status, milliseconds. */
function accessLogTo(io: CliIo): (entry: AccessLogEntry) => void {
  return (entry) =>
    io.stdout.write(`${terminalSafe(`${entry.method} ${entry.path} ${entry.status} ${entry.durationMs}ms`)}\n`);
}

export async function serve(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      host: { type: "string" },
      port: { type: "string" },
      "a2a-push": { type: "string" },
      "public-url": { type: "string" },
      protocols: { type: "string" },
      metrics: { type: "boolean" },
      "access-log": { type: "boolean" },
      ...SERVED_OPTIONS,
    },
  });
  const push = values["a2a-push"] ?? "on";
  if (push !== "on" && push !== "off") throw new UsageError(`--a2a-push must be on or off, got ${push}`);
  const port = values.port === undefined ? 7777 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be a port number, got ${values.port}`);
  const flagged = values.protocols === undefined ? undefined : parseProtocolsFlag(values.protocols);
  const { backend, set, agents, tools, concurrency, workers } = await openServedHost(io, values);
  let tracing: HostTracing | undefined;
  try {
    const metrics = await openHostMetrics(io, backend.store, "sema serve", {
      prometheus: values.metrics === true,
      agents: Object.values(set.agents),
    });
    tracing = await hostTracing(io, backend.store, "sema serve");
    // The command line wins over the config; neither says: every protocol.
    const protocols = await loadProtocols(flagged ?? set.protocols ?? PROTOCOL_NAMES, async () => ({
      // A2A push notifications, their configs beside the tokens (webhooks to public addresses
      // only). Every node that pushes delivers every owed notification: several API nodes on one
      // database run it on one of them (--a2a-push off on the others).
      push: push === "on" ? { configs: await backend.pushConfigs(), tokens: await backend.tokens() } : undefined,
      publicUrl: values["public-url"],
    }));
    const serving = await startServing({
      ...(values["access-log"] === true ? { accessLog: accessLogTo(io) } : {}),
      store: metrics.store,
      tokens: await backend.tokens(),
      agents,
      approvers: { agents: set.approvers },
      ...(set.quotas === undefined ? {} : { quotas: set.quotas }),
      ...(set.serve?.traceContent === undefined ? {} : { traceContent: set.serve.traceContent }),
      host: values.host ?? "127.0.0.1",
      port,
      protocols,
      workers,
      onError: reportTo(io, "sema serve"),
      ...(tracing.emit === undefined ? {} : { emit: tracing.emit }),
      harness: tracing.harness,
      ...(metrics.prometheus === undefined ? {} : { metrics: metrics.prometheus }),
    }).catch((error: unknown) => {
      throw portTrouble(error, port) ?? error;
    });
    const pool = serving.workers;
    metrics.observe(pool === undefined ? undefined : () => pool.running().length);
    io.stdout.write(
      `Sema is serving ${serving.url} (store ${backend.label}, agents from ${set.source}, tools in ${tools.label}, ${concurrency === 0 ? "no workers: API only" : `${concurrency} workers`}${metrics.prometheus === undefined ? "" : `, metrics at ${serving.url}/metrics`})\n`,
    );
    io.stdout.write(`Protocols beside /v1: ${protocolNames(protocols)}\n`);
    if (protocols.some((protocol) => protocol.name === "console"))
      io.stdout.write(`Console: ${serving.url}/ (sign in with a token)\n`);
    if (serving.firstToken !== undefined) {
      io.stdout.write(
        `First start: a token for principal "local" with every role. It is shown once and only its hash is stored:\n\n  ${serving.firstToken.token}\n\nUse it as: Authorization: Bearer <token>\n`,
      );
    } else {
      // The first start's token was shown once: say how to get another.
      io.stdout.write(
        `Tokens: the first start's was shown once; make another with: sema token create --principal local${storeFlagText(values)}\n`,
      );
    }
    if (tracing.target !== undefined) io.stdout.write(`Exporting traces to ${tracing.target}\n`);
    const retention = await hostRetention(io, backend.store, "sema serve", backend.pushConfigs);
    // Ctrl-C or SIGTERM: stop claiming, park running legs at their next boundary, then close.
    await untilInterrupted(io);
    await retention?.stop();
    io.stdout.write("Stopping: running tasks park at their next step and resume on the next start.\n");
    await serving.close({ deadlineMs: 10_000 });
    await metrics.shutdown();
    return 0;
  } finally {
    await tracing?.close();
    await backend.close();
  }
}
