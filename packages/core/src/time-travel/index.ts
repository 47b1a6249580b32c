/**
 * `@sema-agent/core/time-travel`: fork a task at any step (`forkTask`), replay it against a
 * recording of its model and tools and compare what the model was sent (`replayTask`), set two
 * trajectories side by side (`diffTasks`), and carry a task from one store to another as versioned
 * JSON Lines (`exportTask`, `importTask`). docs/guide/time-travel.md.
 *
 * @module @sema-agent/core/time-travel
 */

export { type DiffOptions, type DiffSide, diffTasks, formatTaskDiff, type TaskDiff } from "./diff-tasks.ts";
export {
  EXPORT_VERSION,
  type ExportBlobLine,
  type ExportEnd,
  type ExportHeader,
  type ExportLine,
  type ExportTaskLine,
  exportBlobSchema,
  exportEndSchema,
  exportEventSchema,
  exportHeaderSchema,
  exportLineSchema,
  exportTaskSchema,
} from "./export-format.ts";
export { type ExportOptions, exportTask } from "./export-task.ts";
export { isStepBoundary } from "./fork-cut.ts";
export { type ForkEdits, type ForkOptions, type ForkResult, forkTask, type ReplacedToolResult } from "./fork-task.ts";
export { type ImportOptions, type ImportResult, importTask, parseExport } from "./import-task.ts";
export {
  formatReplay,
  type ReplayDivergence,
  type ReplayOptions,
  type ReplayReport,
  type ReplayTurn,
  replayTask,
} from "./replay-task.ts";
export type { RequestPart } from "./request-diff.ts";
export type { TrajectoryStep } from "./trajectory.ts";
