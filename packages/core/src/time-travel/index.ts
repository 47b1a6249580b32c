/**
 * `@sema-agent/core/time-travel`: fork a task at any step (`forkTask`), replay it against a
 * recording of its model and tools and compare what the model was sent (`replayTask`), set two
 * trajectories side by side (`diffTasks`), and carry a task from one store to another as versioned
 * JSON Lines (`exportTask`, `importTask`). docs/guide/time-travel.md.
 *
 * @module @sema-agent/core/time-travel
 */

export { isStepBoundary } from "./fork-cut.ts";
export { type ForkEdits, type ForkOptions, type ForkResult, forkTask, type ReplacedToolResult } from "./fork-task.ts";
