/**
 * A recorded task as a regression test: `assertReplayIdentical(file, { agent })` imports an export
 * file (`sema export`) into memory and replays it with the agent as it is now; it throws, with the
 * replay's report and diff as the message, when a change altered what the model is sent.
 */
import { MemoryStore } from "../adapters/memory-store.ts";
import { importTask } from "../time-travel/import-task.ts";
import { formatReplay, type ReplayOptions, type ReplayReport, replayTask } from "../time-travel/replay-task.ts";

/** How strict the check is: turns recorded without a digest pass only with `allowUnverified`. */
export interface ReplayRecordingOptions extends Pick<ReplayOptions, "agent"> {
  /** Accept turns recorded before requests were digested (they cannot be compared). Default false. */
  allowUnverified?: boolean;
}

/** Replay the task of an export file with `agent`; the report. */
export async function replayRecording(file: string, options: Pick<ReplayOptions, "agent">): Promise<ReplayReport> {
  const store = new MemoryStore();
  const { taskId } = await importTask(store, file);
  return replayTask(store, taskId, { agent: options.agent });
}

/** Throw, with the report and its diff, unless replaying the file sends the model what the recording did. */
export async function assertReplayIdentical(file: string, options: ReplayRecordingOptions): Promise<ReplayReport> {
  const report = await replayRecording(file, options);
  const ok = report.outcome === "identical" || (report.outcome === "unverified" && options.allowUnverified === true);
  if (!ok) throw new Error(formatReplay(report));
  return report;
}
