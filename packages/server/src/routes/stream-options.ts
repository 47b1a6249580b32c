/** The options of a stream of one task's log for one caller, from what the routes share. */
import type { TaskRecord } from "@sema-agent/core";
import type { SseStreamOptions } from "../events/sse-stream.ts";
import type { Caller } from "../ingress/caller.ts";
import type { RouteDeps } from "./deps.ts";

export function taskStreamOptions(
  deps: RouteDeps,
  caller: Caller,
  record: TaskRecord,
  afterSeq: number,
): SseStreamOptions {
  return {
    store: deps.store,
    hub: deps.hub,
    tails: deps.streams.tails,
    budget: deps.streams.budget,
    frames: deps.streams.frames,
    pacer: deps.streams.pacer,
    record,
    afterSeq,
    heartbeatMs: deps.limits.heartbeatMs,
    maxBufferedBytes: deps.limits.sseMaxBufferedBytes,
    recheckMs: deps.limits.sseRecheckMs,
    ...(caller.stillValid === undefined ? {} : { authorized: caller.stillValid }),
    ...(caller.onRevoked === undefined ? {} : { onRevoked: caller.onRevoked }),
  };
}
