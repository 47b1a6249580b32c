/**
 * One leg's context: who it is (task, leg, lease), what it runs (the agent, the host's settings),
 * the signals that stop it, and the writer it appends through. `runLeg` builds it once; the turn
 * loop, the tool phase and the hooks each take it instead of a list of positional arguments.
 */
import { isInterruptRequest } from "../../core/command-events.ts";
import type { Store } from "../../ports/store.ts";
import type { Tool } from "../../ports/tool.ts";
import type { Emit } from "../../protocol/stream-event.ts";
import type { StoredEvent } from "../../protocol/task-event.ts";
import type { Agent, HarnessOptions } from "../agent.ts";
import type { LegWriter } from "./event-writer.ts";
import type { StoreRetryPolicy } from "./store-retry.ts";

/** What stops a leg from outside: the host's two signals and the lease. */
export interface LegSignals {
  /** The host asked the leg to stop and park (`parked:interrupt`): Ctrl-C. */
  readonly host: AbortSignal | undefined;
  /** The host is shutting down gracefully (`parked:shutdown`). */
  readonly shutdown: AbortSignal | undefined;
  /** The lease could not be kept: the leg ends with `LeaseLost`. */
  readonly lost: AbortSignal;
}

/**
 * Notes the interrupts that others wrote to the log: the writer shows it every event it folds
 * that this leg did not write, and the loop asks it at each step boundary.
 */
export class ForeignInterrupts {
  #requested = false;

  /** An event folded that this leg did not write. */
  see(event: StoredEvent): void {
    if (isInterruptRequest(event)) this.#requested = true;
  }

  get requested(): boolean {
    return this.#requested;
  }
}

/** What the leg's writer needs: built before the leg has an id (a task with no work gets none). */
export interface WriterContext {
  readonly store: Store;
  readonly taskId: string;
  readonly leaseToken: string;
  /** Every stored event goes here as it is folded. */
  readonly emit: Emit;
  /** Store a snapshot after this many events since the last one. */
  readonly snapshotEvery: number;
  /** How long to ride out `StoreUnavailable`. */
  readonly retry: StoreRetryPolicy;
  readonly foreign: ForeignInterrupts;
}

/** One running leg, as the loop, the tool phase and the hooks see it. */
export interface LegContext extends WriterContext {
  readonly legId: string;
  /** The host's settings, with `emit` as the leg sends to it. */
  readonly options: HarnessOptions;
  readonly agent: Agent;
  /** The agent's tools by name. */
  readonly tools: ReadonlyMap<string, Tool>;
  readonly signals: LegSignals;
  readonly writer: LegWriter;
  /** Run a child task's leg in this process (delegation's `runChildren`). */
  readonly runChild: (childTaskId: string) => Promise<unknown>;
}
