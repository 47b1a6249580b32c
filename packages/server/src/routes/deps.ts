/** What the route handlers share: the store and the app's settings, resolved once by `createApp`. */
import type { CanApprove, Store } from "@sema-agent/core";
import type { AgentRegistry, WorkSignal } from "@sema-agent/worker";
import type { CatchUpPacer } from "../events/catch-up-pacer.ts";
import type { EventHub } from "../events/event-hub.ts";
import type { FrameCache } from "../events/frame-cache.ts";
import type { StreamBudget } from "../events/stream-budget.ts";
import type { TaskTails } from "../events/task-tail.ts";
import type { Caller } from "../ingress/caller.ts";
import type { Limits } from "../limits.ts";
import type { TaskQueue } from "./task-queue.ts";

export interface RouteDeps {
  store: Store;
  agents: AgentRegistry;
  limits: Limits;
  hub: EventHub | undefined;
  /** The live tails event streams share (one per task), and the ceiling on their queued bytes. */
  streams: { tails: TaskTails; budget: StreamBudget; frames: FrameCache; pacer: CatchUpPacer };
  workers: WorkSignal | undefined;
  /** Milliseconds since the epoch (the app's clock). */
  now: () => number;
  /** Appends of inputs, one at a time per task in this process, whichever protocol sent them. */
  inputs: TaskQueue;
  /** Who may decide an approval, for this caller. */
  canApprove: (caller: Caller) => CanApprove;
}
