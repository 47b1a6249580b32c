/**
 * Run a task's leg in the terminal: stream it, turn typed lines into steers, park on Ctrl-C, and
 * wait out a lease held by another live process (saying how long). Shared by `run` and `resume`.
 */
import {
  type Agent,
  type Emit,
  type HarnessOptions,
  isSemaError,
  type LegOptions,
  type LegOutcome,
  runLeg,
  type Store,
  sendInput,
} from "@sema-agent/core";
import { nodeHost } from "@sema-agent/core/node";
import type { LeaseHeldError } from "@sema-agent/core/protocol";
import { askApprovals, printPendingApprovals } from "./approvals.ts";
import type { CliIo } from "./context.ts";
import { parkedExitCode } from "./exit-codes.ts";
import { withTracing } from "./host-tracing.ts";
import { Renderer } from "./render.ts";
import { readSteers } from "./steer-input.ts";
import { terminalSafe } from "./terminal-safe.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Lines typed while the leg works become steers (on a TTY, or with --stdin-steers). */
function steerFromStdin(io: CliIo, renderer: Renderer, store: Store, taskId: string, enabled: boolean): () => void {
  if (!enabled || io.stdin === undefined) return () => {};
  return readSteers(
    io.stdin,
    renderer,
    (text) => {
      sendInput(store, taskId, { text }).catch((error: unknown) =>
        io.stderr.write(`sema: steer not sent: ${terminalSafe(String(error))}\n`),
      );
    },
    // Raw mode takes Ctrl-C from the terminal: it does what the signal does (park the leg).
    () => process.kill(process.pid, "SIGINT"),
  );
}

export interface DriveOptions {
  store: Store;
  taskId: string;
  agent: Agent;
  dbFlag: string;
  stdinSteers: boolean;
  trigger?: LegOptions["trigger"];
  /** Also given every event the legs emit (the tracer's sink, when traces are exported). */
  observe?: Emit | undefined;
  /** The tracer's other harness options (`childEmit`, `traceparentOf`), when traces are exported. */
  harness?: Pick<HarnessOptions, "childEmit" | "traceparentOf">;
}

/**
 * Run legs until the task ends or parks. A park for approval is answered at the terminal when a
 * person is there to ask (then the next leg runs the decided calls); otherwise the command says
 * how to decide from anywhere.
 */
export async function driveLeg(io: CliIo, options: DriveOptions): Promise<number> {
  for (;;) {
    const outcome = await runOneLeg(io, options);
    if (outcome === 130) return 130;
    if (outcome.status === "parked" && outcome.parkedReason === "approval") {
      if (io.prompt !== undefined && (await askApprovals(io, options.store, outcome.taskId, io.prompt))) continue;
      await printPendingApprovals(io, options.store, outcome.taskId, options.dbFlag);
    }
    if (outcome.status === "parked" && outcome.parkedReason === "model") {
      // When the park's timer is due: what a worker waits for before it asks the model again.
      const timers = Object.values((await options.store.getTask(outcome.taskId)).summary.timers ?? {});
      if (timers.length > 0) return report(io, outcome, options, Math.min(...timers));
    }
    return report(io, outcome, options);
  }
}

async function runOneLeg(io: CliIo, options: DriveOptions): Promise<LegOutcome | 130> {
  const renderer = new Renderer(io.stdout);
  const stopSteers = steerFromStdin(
    io,
    renderer,
    options.store,
    options.taskId,
    options.stdinSteers || io.stdin?.isTTY === true,
  );
  let outcome: LegOutcome;
  try {
    for (;;) {
      try {
        const legOptions: LegOptions = {};
        if (io.interrupt !== undefined) legOptions.signal = io.interrupt;
        if (options.trigger !== undefined) legOptions.trigger = options.trigger;
        outcome = await runLeg(
          {
            store: options.store,
            agent: options.agent,
            emit: withTracing(renderer.emit, options.observe),
            ...nodeHost(),
            ...options.harness,
          },
          options.taskId,
          legOptions,
        );
        break;
      } catch (error) {
        if (!isSemaError(error, "LeaseHeld")) throw error;
        const held = error as LeaseHeldError;
        const waitMs = Math.max(100, Date.parse(held.expiresAt) - Date.now() + 50);
        const where =
          held.holder.host === undefined ? held.holder.id : `process ${held.holder.pid ?? "?"} on ${held.holder.host}`;
        io.stderr.write(
          `${terminalSafe(`sema: task ${options.taskId} is held by ${where}; its lease expires in ${(waitMs / 1000).toFixed(1)}s, waiting…`)}\n`,
        );
        if (io.interrupt?.aborted === true) return 130;
        await sleep(waitMs);
      }
    }
  } finally {
    stopSteers();
    renderer.finish();
  }
  return outcome;
}

function report(io: CliIo, outcome: LegOutcome, options: DriveOptions, wakeAtMs?: number): number {
  const resume = `sema resume ${outcome.taskId}${options.dbFlag}`;
  if (outcome.status === "parked" && outcome.parkedReason === "model" && wakeAtMs !== undefined) {
    const at = new Date(wakeAtMs).toISOString();
    io.stdout.write(
      `${terminalSafe(`Task ${outcome.taskId} is parked (model): the model is unavailable. A worker (sema worker) asks it again from ${at}; or resume it now with: ${resume}`)}\n`,
    );
    return parkedExitCode("model");
  }
  switch (outcome.status) {
    case "completed":
      if (outcome.legId === undefined)
        io.stdout.write(`${terminalSafe(`Task ${outcome.taskId} is already completed: ${outcome.result ?? ""}`)}\n`);
      return 0;
    case "failed":
      io.stderr.write(
        `${terminalSafe(`Task ${outcome.taskId} failed: ${outcome.error?.message ?? "unknown error"}`)}\n`,
      );
      return 1;
    case "cancelled":
      io.stderr.write(`Task ${outcome.taskId} is cancelled.\n`);
      return 1;
    default:
      io.stdout.write(
        `${terminalSafe(`Task ${outcome.taskId} is parked (${outcome.parkedReason ?? outcome.status}). Resume it with: ${resume}`)}\n`,
      );
      return outcome.parkedReason === "interrupt" && io.interrupt?.aborted === true
        ? 130
        : parkedExitCode(outcome.parkedReason);
  }
}
