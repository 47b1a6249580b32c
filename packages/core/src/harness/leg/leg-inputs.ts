/**
 * Delivering what waits for the leg: the inputs of a carrier (objective, resume, wake, steer),
 * and durable timers once they are due, which become wake inputs.
 */
import { deliveryEvents, dueTimerInputs } from "../../core/input-delivery.ts";
import { waitingInputs } from "../../core/waiting-inputs.ts";
import type { RunningLeg } from "./running-leg.ts";

/** Deliver the inputs waiting for `carrier`, if any. */
export async function deliver(leg: RunningLeg, carrier: "objective" | "resume" | "wake" | "steer"): Promise<void> {
  await leg.ctx.writer.appendWhen((state) => {
    const inputs = waitingInputs(state)[carrier];
    return inputs.length === 0 ? undefined : deliveryEvents(carrier, inputs, state, leg.ctx.options.randomBytes);
  });
}

/** Turn due timers into wake inputs (the input takes the timer's id, which retires it). */
export async function fireTimers(leg: RunningLeg, delivery: "parked" | "received"): Promise<void> {
  if (leg.ctx.writer.state.timers.length === 0) return;
  await leg.ctx.writer.appendWhen((state) => {
    const events = dueTimerInputs(state, leg.ctx.clock(), delivery, leg.ctx.legId);
    return events.length === 0 ? undefined : events;
  });
}
