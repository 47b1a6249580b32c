/**
 * The events that deliver inputs to the model, pure functions of the folded state: applying
 * waiting inputs on a carrier, and firing due timers as wake inputs. The loop appends what these
 * return; a leg resumed from the same log builds the same events.
 */

import type { TaskEvent } from "../protocol/task-event.ts";
import type { PendingInput, TaskState } from "./fold.ts";
import { buildAppliedHumanInputEvent, buildHumanInputEvent } from "./human-input-projection.ts";
import { type DeliveryCarrier, renderEntry } from "./input-rendering.ts";
import { isModelWait } from "./model-wait.ts";
import type { RandomBytes } from "./trust-framing.ts";

/** Applying `inputs` on `carrier`: one `applied` each, then the entry with their exact bytes. */
export function deliveryEvents(
  carrier: DeliveryCarrier,
  inputs: readonly PendingInput[],
  state: TaskState,
  randomBytes?: RandomBytes,
): TaskEvent[] {
  const events: TaskEvent[] = inputs.map((input) =>
    buildAppliedHumanInputEvent({
      carrier,
      source: input.source,
      sessionSeq: state.summary.sessionSeq,
      inputId: input.inputId,
      actor: input.actor,
      principal: state.principal,
    }),
  );
  const { content, parts } = renderEntry(inputs, carrier, randomBytes);
  // Derived from the inputs (each applied once), so a leg resumed from the same log writes the same entry.
  const entryId = `entry:${inputs[0]?.inputId ?? ""}`;
  const inputIds = inputs.map((i) => i.inputId);
  // Version 2 only with attachments: an entry of text stays byte for byte what it always was.
  events.push(
    parts === undefined
      ? { type: "user_message", v: 1, entryId, content, inputIds }
      : { type: "user_message", v: 2, entryId, content, inputIds, parts },
  );
  return events;
}

/**
 * The wake inputs of the timers due at `nowMs`; each takes its timer's id, which retires it. A
 * model park's timer is not one of them: it carries no message (see `model-wait.ts`).
 */
export function dueTimerInputs(
  state: TaskState,
  nowMs: number,
  delivery: "parked" | "received",
  legId: string,
): TaskEvent[] {
  return state.timers
    .filter((timer) => Date.parse(timer.due) <= nowMs && !isModelWait(timer.wakeId))
    .map((timer) =>
      buildHumanInputEvent({
        inputId: timer.wakeId,
        carrier: "wake",
        source: timer.source,
        delivery,
        sessionSeq: state.summary.sessionSeq,
        text: timer.text,
        ...(timer.from === undefined ? {} : { actor: { id: timer.from, verified: false } }),
        ...(delivery === "received" ? { legId } : {}),
      }),
    );
}
