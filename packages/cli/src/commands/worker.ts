/**
 * `sema worker [--concurrency N] [--db path | --store url] [--model …]`: a worker-only node. It
 * claims runnable tasks from the shared store and runs their legs; it serves no HTTP. Steers and
 * approvals reach its legs through the store (on PostgreSQL, LISTEN/NOTIFY), from whichever API
 * node received them. Stream deltas stay on this node: subscribers elsewhere see the stored
 * events, which are the truth.
 */
import { parseArgs } from "node:util";
import { createAgentRegistry, startWorkers } from "@sema-agent/server";
import { loadAgents } from "../agent-config.ts";
import { type CliIo, openBackend, STORE_OPTIONS, UsageError } from "../context.ts";
import { requireModel } from "./run.ts";

export function nonNegativeInteger(flag: string, value: string | undefined, fallback: number): number {
  const n = value === undefined ? fallback : Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag} must be a non-negative integer, got ${value}`);
  return n;
}

/**
 * `--lease-ttl ms`: how long a crashed node's tasks wait before another takes them over (the
 * holder renews every third of it). Default 30 s.
 */
export function leaseTtl(value: string | undefined): number {
  const ms = nonNegativeInteger("--lease-ttl", value, 30_000);
  if (ms < 300) throw new UsageError(`--lease-ttl must be at least 300 ms, got ${value}`);
  return ms;
}

/** A host's error sink: one line on stderr. */
export function reportTo(io: CliIo, who: string): (error: unknown, taskId: string | undefined) => void {
  return (error, taskId) =>
    io.stderr.write(
      `${who}: ${taskId === undefined ? "" : `task ${taskId}: `}${error instanceof Error ? error.message : String(error)}\n`,
    );
}

/** Resolves on Ctrl-C or SIGTERM (the bin turns both into `io.interrupt`). */
export function untilInterrupted(io: CliIo): Promise<void> {
  return new Promise<void>((resolve) => {
    if (io.interrupt === undefined || io.interrupt.aborted) return resolve();
    io.interrupt.addEventListener("abort", () => resolve(), { once: true });
  });
}

export async function worker(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...STORE_OPTIONS,
      model: { type: "string" },
      concurrency: { type: "string" },
      poll: { type: "string" },
      "lease-ttl": { type: "string" },
    },
  });
  const concurrency = nonNegativeInteger("--concurrency", values.concurrency, 4);
  if (concurrency === 0) throw new UsageError("--concurrency must be at least 1");
  const pollMs = nonNegativeInteger("--poll", values.poll, 500);
  const leaseTtlMs = leaseTtl(values["lease-ttl"]);
  const set = await loadAgents(io.cwd, io.env, () => requireModel(io, values.model));
  const backend = await openBackend(io, values);
  try {
    const pool = startWorkers({
      store: backend.store,
      agents: createAgentRegistry(set.agents, set.defaultAgent),
      concurrency,
      pollMs: Math.max(10, pollMs),
      leaseTtlMs,
      onError: reportTo(io, "sema worker"),
    });
    io.stdout.write(
      `Sema worker running ${concurrency} legs at a time (store ${backend.label}, agents from ${set.source}, pid ${process.pid})\n`,
    );
    await untilInterrupted(io);
    io.stdout.write("Stopping: running tasks park at their next step; any worker resumes them.\n");
    const stopped = await pool.stop({ deadlineMs: 10_000 });
    if (stopped.abandoned.length > 0)
      io.stderr.write(`sema worker: ${stopped.abandoned.length} legs did not stop in time; their leases expire.\n`);
    return 0;
  } finally {
    await backend.close();
  }
}
