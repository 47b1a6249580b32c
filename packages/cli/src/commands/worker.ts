/**
 * `sema worker [--concurrency N] [--max-per-principal N] [--db path | --store url] [--model …] [--workspaces dir]
 * [--workspace-per principal|task]`: a worker-only node (file tools in workspaces as for `sema serve`). It
 * claims runnable tasks from the shared store and runs their legs; it serves no HTTP. Steers and
 * approvals reach its legs through the store (on PostgreSQL, LISTEN/NOTIFY), from whichever API
 * node received them. Stream deltas stay on this node: subscribers elsewhere see the stored
 * events, which are the truth.
 */
import { parseArgs } from "node:util";
import { quotaGateFor } from "@sema-agent/core/quotas";
import { createAgentRegistry, startWorkers } from "@sema-agent/worker";
import { loadAgents } from "../agent-config.ts";
import { type CliIo, openBackend, STORE_OPTIONS, storeLocation, UsageError } from "../context.ts";
import { openHostMetrics } from "../host-metrics.ts";
import { leaseTtl, maxPerPrincipal, nonNegativeInteger, reportTo, untilInterrupted } from "../host-options.ts";
import { type HostTracing, hostTracing } from "../host-tracing.ts";
import { hostRetention } from "../retention/host-retention.ts";
import { servedToolSetup, WORKSPACE_OPTIONS } from "../tool-roots.ts";
import { requireModel } from "./run.ts";

export async function worker(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...STORE_OPTIONS,
      ...WORKSPACE_OPTIONS,
      model: { type: "string" },
      concurrency: { type: "string" },
      "max-per-principal": { type: "string" },
      poll: { type: "string" },
      "lease-ttl": { type: "string" },
    },
  });
  const concurrency = nonNegativeInteger("--concurrency", values.concurrency, 4);
  if (concurrency === 0) throw new UsageError("--concurrency must be at least 1");
  const pollMs = nonNegativeInteger("--poll", values.poll, 500);
  const leaseTtlMs = leaseTtl(values["lease-ttl"]);
  const perPrincipal = maxPerPrincipal(values["max-per-principal"]);
  // Each principal's tools get a workspace of their own, away from the store and the config.
  const tools = servedToolSetup(io, storeLocation(io, values), values);
  const set = await loadAgents(io.cwd, io.env, () => requireModel(io, values.model), tools);
  const backend = await openBackend(io, values);
  let tracing: HostTracing | undefined;
  try {
    const metrics = await openHostMetrics(io, backend.store, "sema worker", { agents: Object.values(set.agents) });
    tracing = await hostTracing(io, backend.store, "sema worker");
    // The config's quotas over the shared store. Not the tokens' records: a worker loads nothing
    // of the server (module-graph.test.ts), so their quotas hold in sema serve's legs only.
    const quota = quotaGateFor(backend.store, set.quotas);
    const pool = startWorkers({
      store: metrics.store,
      ...(tracing.emit === undefined ? {} : { hub: { publish: tracing.emit } }),
      harness: tracing.harness,
      agents: createAgentRegistry(set.agents, set.defaultAgent),
      concurrency,
      ...perPrincipal,
      pollMs: Math.max(10, pollMs),
      leaseTtlMs,
      // The config's quotas over the shared store: the same totals as every other node's.
      ...(quota === undefined ? {} : { quota }),
      onError: reportTo(io, "sema worker"),
    });
    metrics.observe(() => pool.running().length);
    io.stdout.write(
      `Sema worker running ${concurrency} legs at a time (store ${backend.label}, agents from ${set.source}, tools in ${tools.label}, pid ${process.pid})\n`,
    );
    if (tracing.target !== undefined) io.stdout.write(`Exporting traces to ${tracing.target}\n`);
    const retention = await hostRetention(io, backend.store, "sema worker", backend.pushConfigs);
    await untilInterrupted(io);
    await retention?.stop();
    io.stdout.write("Stopping: running tasks park at their next step; any worker resumes them.\n");
    const stopped = await pool.stop({ deadlineMs: 10_000 });
    if (stopped.abandoned.length > 0)
      io.stderr.write(`sema worker: ${stopped.abandoned.length} legs did not stop in time; their leases expire.\n`);
    await metrics.shutdown();
    return 0;
  } finally {
    await tracing?.close();
    await backend.close();
  }
}
