/**
 * Where a fork's copy of a log may end (docs/guide/time-travel.md): at a step boundary, never
 * inside a turn's settling. A seq is a boundary when the fold up to it has no applied input whose
 * transcript entry is still to come (the two share an append), no call in doubt while a leg
 * runs (started, no result), and does not end on a final answer whose outcome is still to come.
 */
import { Folder, type TaskState } from "../core/fold.ts";
import type { StoredEvent } from "../protocol/task-event.ts";

/** Whether the state folded through `last` is a step boundary. */
export function isStepBoundary(state: TaskState, last: StoredEvent): boolean {
  if (state.applying !== undefined && state.applying.length > 0) return false;
  const legOpen = state.summary.status === "running";
  // A started call while a leg runs is in doubt, whichever leg asked for it (a recovering leg
  // settles a crashed leg's calls first): the cut goes back before it.
  if (legOpen && state.openToolCalls.some((call) => call.started)) return false;
  // A final answer is settled by what its append carries with it (the task's end, a correction).
  if (legOpen && last.type === "model_turn" && last.toolCalls.length === 0) return false;
  return true;
}

/** The fold of `events` through each seq, and the last boundary at or before `atSeq`. */
export interface Cut {
  /** The last seq copied. */
  seq: number;
  /** The state folded through it. */
  state: TaskState;
}

/**
 * The last step boundary at or before `atSeq` (seq 1, the task's creation, always is one), and the
 * state there. `events` are the source's, from seq 1, at least through `atSeq`. Two folds, no copy.
 */
export function cutAt(events: readonly StoredEvent[], atSeq: number, boundary = isStepBoundary): Cut {
  const scan = new Folder();
  let seq = 1;
  for (const event of events) {
    if (event.seq > atSeq) break;
    scan.apply(event);
    if (boundary(scan.state, event)) seq = event.seq;
  }
  return { seq, state: foldThrough(events, seq) };
}

/** The state folded through `seq`. */
export function foldThrough(events: readonly StoredEvent[], seq: number): TaskState {
  const folder = new Folder();
  for (const event of events) {
    if (event.seq > seq) break;
    folder.apply(event);
  }
  return folder.state;
}
