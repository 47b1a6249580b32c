/**
 * The step boundary, where a turn begins: the leg folds what others appended, ends if it is asked
 * to stop (cancel, graceful shutdown, interrupt, host abort), and delivers timers that are due
 * and the steers that wait.
 */
import { LeaseLostError } from "../../protocol/errors.ts";
import { endLeg } from "./leg-end.ts";
import { deliver, fireTimers } from "./leg-inputs.ts";
import type { RunningLeg } from "./running-leg.ts";

/**
 * Why the leg must end now, if it must: a cancel, a graceful shutdown, an interrupt or a host
 * abort. A lost lease ends it with an error instead. Synchronous: asked at every boundary.
 */
export function stopReason(leg: RunningLeg): "cancelled" | "parked:shutdown" | "parked:interrupt" | undefined {
  const { signals, writer, foreign } = leg.ctx;
  const { host, shutdown, lost } = signals;
  if (lost.aborted) throw new LeaseLostError(leg.ctx.taskId);
  if (writer.state.summary.status === "cancelled") return "cancelled";
  if (shutdown?.aborted === true) return "parked:shutdown";
  if (foreign.requested || host?.aborted === true) return "parked:interrupt";
  return undefined;
}

/** The boundary: `ended` when a stop ended the leg. Each part is awaited only when the state says it has work. */
export async function atBoundary(leg: RunningLeg): Promise<"next" | "ended"> {
  const w = leg.ctx.writer;
  if (w.stale) await w.refresh();
  const stop = stopReason(leg);
  if (stop !== undefined) return endLeg(leg, stop);
  // A timer due while the leg runs is delivered like a wake sent now: as a steer.
  if (w.state.timers.length > 0) await fireTimers(leg, "received");
  if (w.state.inputs.length > 0) await deliver(leg, "steer");
  return "next";
}
