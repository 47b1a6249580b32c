/**
 * A leg's opening, before its first turn: what earlier legs left is settled first (a model park's
 * timers retired, calls in doubt answered or run again, open calls run, the leg parked again where
 * they still wait), then the timers due and the inputs that waited are delivered.
 */
import { deliver, fireTimers } from "./leg-inputs.ts";
import { retireModelWaits } from "./model-park.ts";
import { OPENING_CARRIERS } from "./opening-deliveries.ts";
import type { RunningLeg } from "./running-leg.ts";
import { callsMayWait, parkWhereCallsWait } from "./wait-points.ts";

/** Open the leg; `ended` when it parked again at once. */
export async function openLeg(leg: RunningLeg): Promise<"next" | "ended"> {
  const w = leg.ctx.writer;
  // This leg asks the model anyway: a model park's timer must not start another leg later.
  if (w.state.timers.length > 0) await retireModelWaits(leg);
  await leg.toolPhase.recoverInDoubt();
  await leg.toolPhase.run(w.state.openToolCalls);
  if (callsMayWait(leg) && (await parkWhereCallsWait(leg)) === "ended") return "ended";
  await fireTimers(leg, "parked");
  // Usually delivered with leg_started already (opening-deliveries.ts): then nothing waits here.
  if (w.state.inputs.length > 0) for (const carrier of OPENING_CARRIERS) await deliver(leg, carrier);
  return "next";
}
