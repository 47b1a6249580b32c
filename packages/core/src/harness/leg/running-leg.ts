/**
 * One running leg as the steps of its turns see it: the leg's context and what is built once per
 * leg (hooks, tool phase, the model request's parts). `LegLoop` is the one implementation; each
 * step is a function of it, in a file of its own beside the loop.
 */
import type { LegHooks } from "../hooks/hook-runner.ts";
import type { RequestBlobs, RequestSettings } from "../model/model-request.ts";
import type { ToolPhase } from "../tools/tool-phase.ts";
import type { LegContext } from "./leg-context.ts";
import type { OfferedTools } from "./offered-tools.ts";

/** A running leg, for the steps of its turns. */
export interface RunningLeg {
  readonly ctx: LegContext;
  readonly hooks: LegHooks;
  readonly toolPhase: ToolPhase;
  /** The bytes of the attachments the transcript references, read once per leg. */
  readonly blobs: RequestBlobs;
  /** What the model request needs from the agent, built once per leg. */
  readonly settings: RequestSettings;
  /** The tools the model is offered. */
  readonly offered: OfferedTools;
  /** The signal of the current step (renewed after an abort the loop has handled). */
  stepSignal(): AbortSignal;
  /** Run one step (a model call, a batch of tools) with a watcher armed if it takes a while. */
  watched<T>(work: () => Promise<T>): Promise<T>;
}
