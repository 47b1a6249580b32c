/**
 * A model that stays unavailable past its retries (`withRetry`'s policy) parks the task as
 * `parked:model` instead of failing it: the park, its note and its durable timer are one append,
 * so a crash leaves either no park or a park that will wake. The wait grows with the parks in a
 * row (counted by the fold, reset by a model turn), so a long outage is not hammered.
 */

import { modelWaitId } from "../../core/model-wait.ts";
import type { ModelFailure } from "../../ports/model.ts";
import type { TaskEvent } from "../../protocol/task-event.ts";
import type { Agent } from "../agent.ts";

/** Defaults of `Agent.modelBackoff`. */
export const MODEL_BACKOFF_DEFAULTS = { baseMs: 10_000, maxMs: 600_000 } as const;

/**
 * The wait after park number `parks` (1-based, this one included):
 * `min(maxMs, max(baseMs × 2^(parks−1), retryAfterMs ?? 0))`. No jitter: the retries inside the
 * turn had it already, and a due time that is a pure function of the log is easier to reason about.
 */
export function modelParkDelayMs(parks: number, failure: ModelFailure, backoff: Agent["modelBackoff"]): number {
  const base = Math.max(0, backoff?.baseMs ?? MODEL_BACKOFF_DEFAULTS.baseMs);
  const max = Math.max(0, backoff?.maxMs ?? MODEL_BACKOFF_DEFAULTS.maxMs);
  const grown = base * 2 ** Math.min(Math.max(0, parks - 1), 52);
  return Math.floor(Math.min(max, Math.max(grown, failure.retryAfterMs ?? 0)));
}

/** How a failure is named in notes and errors: its message, its code, its HTTP status. */
export function describeFailure(failure: ModelFailure): string {
  const where = failure.status === undefined ? failure.code : `${failure.code}, HTTP ${failure.status}`;
  return `${failure.message} (${where})`;
}

/**
 * The note and the timer of a park for `failure` at `nowMs`, `parks` being this park's number in
 * the row. The caller appends them with the `leg_ended` (`parked:model`).
 */
export function modelParkEvents(options: {
  failure: ModelFailure;
  parks: number;
  legId: string;
  nowMs: number;
  backoff: Agent["modelBackoff"];
}): TaskEvent[] {
  const { failure, parks, legId } = options;
  const delayMs = modelParkDelayMs(parks, failure, options.backoff);
  const due = new Date(options.nowMs + delayMs).toISOString();
  const wakeId = modelWaitId(legId);
  return [
    {
      type: "engine_note",
      v: 1,
      kind: "model_unavailable",
      text: `The model is unavailable: ${describeFailure(failure)}; the task parks and asks again at ${due} (park ${parks} in a row).`,
      data: {
        code: failure.code,
        ...(failure.status === undefined ? {} : { status: failure.status }),
        parks,
        delayMs,
        due,
        wakeId,
      },
      legId,
    },
    {
      type: "wake_scheduled",
      v: 1,
      wakeId,
      due,
      // Never delivered (the next leg retires the timer); kept for whoever reads the log.
      text: "The model was unavailable; the same turn is asked again.",
      source: "system",
    },
  ];
}
