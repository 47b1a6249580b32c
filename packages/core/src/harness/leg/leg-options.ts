/**
 * What one `runLeg` call may be told besides the host's options. Its own module so the schema
 * that checks it (config/harness-options-schema.ts) need not import the leg.
 */
import type { Lease } from "../../ports/store.ts";
import type { LegStartedEvent } from "../../protocol/task-event.ts";

/**
 * What one leg run may be given besides the host's options: signals to stop it (park for any host,
 * or park for a person), its trigger, and a lease already taken.
 */
export interface LegOptions {
  /**
   * Aborting parks the task at its next step as `parked:shutdown` (its tools see their signal):
   * a host stopping gracefully. Unlike `signal`, the task stays runnable for any other host.
   */
  shutdown?: AbortSignal;
  /** Aborting parks the task at its next step (`parked:interrupt`), aborting the model call and tools: Ctrl-C. */
  signal?: AbortSignal;
  /** Recorded on `leg_started`; inferred from the task's state when absent. */
  trigger?: LegStartedEvent["trigger"];
  /** A lease already taken for this task (a worker's `claimRunnable`); otherwise the leg takes one. */
  lease?: Lease;
}
