/**
 * `runTask`: a leg as an async iterable of stream events — the thin wrapper over `runLeg`'s emit
 * sink. The iteration ends when the leg does; `outcome` says how, and rejects if the leg threw.
 */
import type { StreamEvent } from "../../protocol/stream-event.ts";
import type { HarnessOptions } from "../agent.ts";
import type { LegOutcome } from "./leg-outcome.ts";
import { type LegOptions, runLeg } from "./run-leg.ts";

export interface TaskRun extends AsyncIterable<StreamEvent> {
  readonly outcome: Promise<LegOutcome>;
}

export function runTask(options: HarnessOptions, taskId: string, legOptions: LegOptions = {}): TaskRun {
  const queue: StreamEvent[] = [];
  let wakeReader: (() => void) | undefined;
  let finished = false;
  const upstream = options.emit;
  const outcome = runLeg(
    {
      ...options,
      emit: (event) => {
        upstream?.(event);
        queue.push(event);
        wakeReader?.();
      },
    },
    taskId,
    legOptions,
  ).finally(() => {
    finished = true;
    wakeReader?.();
  });
  // The iterator surfaces a failure through `outcome`; keep it from being reported as unhandled here.
  outcome.catch(() => undefined);
  return {
    outcome,
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (queue.length > 0) yield queue.shift() as StreamEvent;
        if (finished) {
          await outcome;
          return;
        }
        await new Promise<void>((resolve) => {
          wakeReader = resolve;
        });
        wakeReader = undefined;
      }
    },
  };
}
