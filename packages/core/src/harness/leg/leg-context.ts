/**
 * One leg's context: who it is (task, leg, lease), what it runs (the agent, the host's settings),
 * the signals that stop it, and the writer it appends through. `runLeg` builds it once; the turn
 * loop, the tool phase and the hooks each take it instead of a list of positional arguments.
 */
import type { Tool } from "../../ports/tool.ts";
import type { Agent, HarnessOptions } from "../agent.ts";
import type { LegWriter, WriterContext } from "./event-writer.ts";

/** What stops a leg from outside: the host's two signals and the lease. */
export interface LegSignals {
  /** The host asked the leg to stop and park (`parked:interrupt`): Ctrl-C. */
  readonly host: AbortSignal | undefined;
  /** The host is shutting down gracefully (`parked:shutdown`). */
  readonly shutdown: AbortSignal | undefined;
  /** The lease could not be kept: the leg ends with `LeaseLost`. */
  readonly lost: AbortSignal;
}

/** One running leg, as the loop, the tool phase and the hooks see it. */
export interface LegContext extends WriterContext {
  readonly legId: string;
  /** The host's settings, with `emit` as the leg sends to it. */
  readonly options: HarnessOptions;
  /** The harness's clock (`HarnessOptions.clock`, or the wall clock): every time the leg reads. */
  readonly clock: () => number;
  readonly agent: Agent;
  /** The agent's tools by name. */
  readonly tools: ReadonlyMap<string, Tool>;
  readonly signals: LegSignals;
  readonly writer: LegWriter;
  /** Run a child task's leg in this process (delegation's `runChildren`). */
  readonly runChild: (childTaskId: string) => Promise<unknown>;
}
