/**
 * `streamLeg`: one leg as an async iterable of stream events — the thin wrapper over `runLeg`'s
 * emit sink. The iteration ends when the leg does; `outcome` says how, and rejects if the leg threw.
 * A reader that stops early (`break`, `return()`) stops the leg too: it parks at its next step
 * (`parked:interrupt`, its tools see their signal abort), releases its lease, and nothing more
 * is queued for the reader that left.
 */
import type { StreamEvent } from "../../protocol/stream-event.ts";
import type { HarnessOptions } from "../agent.ts";
import { validateLegArguments } from "../config/harness-options-schema.ts";
import type { LegOutcome } from "./leg-outcome.ts";
import { type LegOptions, runLeg } from "./run-leg.ts";

/** A running leg: its events as they happen, and how it ended. */
export interface LegStream extends AsyncIterable<StreamEvent> {
  readonly outcome: Promise<LegOutcome>;
}

/**
 * Run one leg of `taskId`, streaming its events; leaving the iteration early interrupts the leg.
 * A wrong agent or options throw a `ConfigError` at the call, before anything is touched.
 */
export function streamLeg(options: HarnessOptions, taskId: string, legOptions: LegOptions = {}): LegStream {
  // Thrown here, at the call, rather than from the first iteration.
  validateLegArguments(options, legOptions, "streamLeg");
  const queue: StreamEvent[] = [];
  let wakeReader: (() => void) | undefined;
  let finished = false;
  let readerLeft = false;
  const left = new AbortController();
  const signal = legOptions.signal === undefined ? left.signal : AbortSignal.any([legOptions.signal, left.signal]);
  const upstream = options.emit;
  const outcome = runLeg(
    {
      ...options,
      emit: (event) => {
        upstream?.(event);
        if (readerLeft) return;
        queue.push(event);
        wakeReader?.();
      },
    },
    taskId,
    { ...legOptions, signal },
  ).finally(() => {
    finished = true;
    wakeReader?.();
  });
  // The iterator surfaces a failure through `outcome`; keep it from being reported as unhandled here.
  outcome.catch(() => undefined);
  return {
    outcome,
    async *[Symbol.asyncIterator]() {
      try {
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
      } finally {
        // Reached on every exit; only a reader that left before the leg ended stops it.
        if (!finished) {
          readerLeft = true;
          queue.length = 0;
          left.abort();
        }
      }
    },
  };
}
