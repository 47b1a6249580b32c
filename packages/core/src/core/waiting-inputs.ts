/**
 * Which waiting inputs go on which core carrier right now: the objective at the first leg, live
 * steers for the open leg, follow-ups for when the agent would finish, what arrived while no leg
 * ran (drained on resume), and wakes.
 */
import type { PendingInput, TaskState } from "./fold.ts";

/** The inputs waiting for each core carrier, as a leg would deliver them now. */
export interface WaitingInputs {
  /** The task's first words, delivered when its first leg starts. */
  objective: PendingInput[];
  /** Live steers for the running leg (and wakes sent while it runs): delivered at the next step boundary. */
  steer: PendingInput[];
  /** Follow-ups delivered when the agent would otherwise finish. */
  nextTurn: PendingInput[];
  /** Inputs that arrived while no leg ran (or meant for a leg that ended): drained on resume. */
  resume: PendingInput[];
  /** Wake messages: start a new leg on a parked or finished task. */
  wake: PendingInput[];
}

/** `openLeg`: the leg the inputs are for, when it is not yet in `state` (one about to start). */
export function waitingInputs(state: TaskState, openLeg: string | undefined = state.summary.legId): WaitingInputs {
  const out: WaitingInputs = { objective: [], steer: [], nextTurn: [], resume: [], wake: [] };
  for (const input of state.inputs) {
    const live =
      input.delivery === "received" && openLeg !== undefined && (input.legId === undefined || input.legId === openLeg);
    if (input.carrier === "objective") out.objective.push(input);
    else if (input.carrier === "nextTurn" || input.policy === "queue") out.nextTurn.push(input);
    else if (live) out.steer.push(input);
    else if (input.carrier === "wake") out.wake.push(input);
    else out.resume.push(input);
  }
  return out;
}
