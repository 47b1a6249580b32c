/**
 * Parking for a model that stays unavailable (`parked:model`), with a durable timer due after the
 * backoff; and retiring such timers when a later leg asks the model anyway.
 */
import { modelWaitRetirements } from "../../core/model-wait.ts";
import type { ModelFailure } from "../../ports/model.ts";
import { modelParkEvents } from "../model/model-unavailable.ts";
import type { RunningLeg } from "./running-leg.ts";

/**
 * The model stayed unavailable: park with a timer due after the backoff, both in the append that
 * ends the leg, so a crash cannot leave a park that never wakes. Nothing of the turn was
 * recorded, so the next leg asks the same turn again; the tools before it have their results.
 */
export async function parkForModel(leg: RunningLeg, failure: ModelFailure): Promise<"ended"> {
  const { ctx } = leg;
  const { agent } = ctx.options;
  await ctx.writer.appendWhen((state) => {
    if (state.summary.legId !== ctx.legId) return undefined;
    // Cancelled while the model failed: the leg ends as cancelled, with no timer to wake it.
    if (state.summary.status === "cancelled")
      return [{ type: "leg_ended", v: 1, legId: ctx.legId, reason: "cancelled" }];
    const park = modelParkEvents({
      failure,
      parks: (state.modelParks ?? 0) + 1,
      legId: ctx.legId,
      nowMs: ctx.clock(),
      backoff: agent.modelBackoff,
    });
    return [...park, { type: "leg_ended", v: 1, legId: ctx.legId, reason: "parked:model", detail: failure.code }];
  });
  return "ended";
}

/** Retire the timers of earlier model parks (see `core/model-wait.ts`). */
export async function retireModelWaits(leg: RunningLeg): Promise<void> {
  await leg.ctx.writer.appendWhen((state) => {
    const events = modelWaitRetirements(state);
    return events.length === 0 ? undefined : events;
  });
}
