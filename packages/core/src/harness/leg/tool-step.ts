/**
 * The tools of a turn: the turn is recorded with its calls' first starts, each batch's results as
 * it settles (see `ToolPhase`); then the leg parks where calls wait, or stores a snapshot when due.
 */

import type { AnsweredTurn } from "./model-step.ts";
import type { RunningLeg } from "./running-leg.ts";
import { callsMayWait, parkWhereCallsWait } from "./wait-points.ts";

/** Run the calls of `answered`; `ended` when the leg parked for them. */
export async function runTools(leg: RunningLeg, answered: AnsweredTurn): Promise<"next" | "ended"> {
  const { legId, writer } = leg.ctx;
  const calls = answered.turn.toolCalls.map((call) => ({ ...call, started: false, attempt: 0, legId }));
  await leg.toolPhase.run(calls, [answered.event]);
  if (callsMayWait(leg) && (await parkWhereCallsWait(leg)) === "ended") return "ended";
  if (writer.snapshotDue()) await writer.maybeSnapshot();
  return "next";
}
