/**
 * What a status read shows of a task beyond its record: the creation fields, the approvals that
 * wait, the children, the result or error. Read from the record's summary and the few events its
 * `seqs` point at, so the cost does not grow with the log; a summary without `seqs` (stored before
 * they existed) is folded from the latest snapshot instead, as every read did before.
 */
import { type ApprovalState, type ChildState, fold, stateFromJson, type TaskState } from "../../core/fold.ts";
import type { Store, TaskRecord } from "../../ports/store.ts";
import type { JsonValue } from "../../protocol/json.ts";
import type { StoredEvent } from "../../protocol/task-event.ts";
import { EVENT_SEQS_VERSION, type EventSeqs } from "../../protocol/task-summary.ts";

/** A task's status beyond its record (see the module comment). */
export interface TaskOverview {
  objective: string;
  agent?: string;
  model?: string;
  parentTaskId?: string;
  metadata?: { [key: string]: JsonValue };
  /** Approvals requested and not decided, in request order. */
  pendingApprovals: ApprovalState[];
  children: ChildState[];
  /** The latest `task_completed` result, while the task is completed. */
  result?: string;
  /** The latest `task_failed` error, while the task has failed. */
  error?: { code: string; message: string };
}

/** The task's overview; `record` is its current record (`store.getTask`). */
export async function loadTaskOverview(store: Store, record: TaskRecord): Promise<TaskOverview> {
  const seqs = record.summary.seqs;
  if (seqs?.v !== EVENT_SEQS_VERSION) return overviewOf(record, await loadTaskState(store, record.taskId));
  return fromSeqs(store, record, seqs);
}

/** The task's folded state: the latest snapshot, if any, plus the events after it. O(log). */
export async function loadTaskState(store: Store, taskId: string): Promise<TaskState> {
  const snapshot = await store.latestSnapshot(taskId);
  const base = snapshot === undefined ? undefined : stateFromJson(snapshot.v, snapshot.state);
  const after = base === undefined ? 0 : (snapshot?.seq ?? 0);
  const events = await store.read(taskId, { afterSeq: after });
  return base === undefined ? fold(events) : fold(events, base);
}

async function eventAt(store: Store, taskId: string, seq: number): Promise<StoredEvent | undefined> {
  // A seq from a stored summary is data: anything but a positive integer points at nothing.
  if (!Number.isInteger(seq) || seq < 1) return undefined;
  const [event] = await store.read(taskId, { afterSeq: seq - 1, limit: 1 });
  return event?.seq === seq ? event : undefined;
}

async function fromSeqs(store: Store, record: TaskRecord, seqs: EventSeqs): Promise<TaskOverview> {
  const { taskId, summary } = record;
  const approvalSeqs = summary.openApprovals.map((callId) =>
    Object.hasOwn(seqs.approvals, callId) ? seqs.approvals[callId] : undefined,
  );
  const childSeqs = Object.values(seqs.children);
  const [created, end, approvals, children] = await Promise.all([
    eventAt(store, taskId, 1),
    seqs.end === undefined ? undefined : eventAt(store, taskId, seqs.end),
    Promise.all(approvalSeqs.map((seq) => (seq === undefined ? undefined : eventAt(store, taskId, seq)))),
    Promise.all(childSeqs.map((seq) => eventAt(store, taskId, seq))),
  ]);
  const overview: TaskOverview = { objective: "", pendingApprovals: [], children: [] };
  if (created?.type === "task_created") {
    overview.objective = created.objective;
    if (created.agent !== undefined) overview.agent = created.agent;
    if (created.model !== undefined) overview.model = created.model;
    if (created.parentTaskId !== undefined) overview.parentTaskId = created.parentTaskId;
    if (created.metadata !== undefined) overview.metadata = created.metadata;
  }
  for (const event of approvals) {
    if (event?.type !== "approval_requested") continue;
    const { callId, name, inputJson, digest, provenance } = event;
    overview.pendingApprovals.push(
      provenance === undefined ? { callId, name, inputJson, digest } : { callId, name, inputJson, digest, provenance },
    );
  }
  for (const event of children) {
    if (event?.type !== "child_task") continue;
    const child: ChildState = { childTaskId: event.childTaskId, status: "running" };
    if (event.phase === "result") {
      child.status = event.status ?? "completed";
      if (event.result !== undefined) child.result = event.result;
    }
    overview.children.push(child);
  }
  if (end?.type === "task_completed" && summary.status === "completed") overview.result = end.result;
  if (end?.type === "task_failed" && summary.status === "failed") overview.error = { ...end.error };
  return overview;
}

/** The same overview from a folded state. */
export function overviewOf(record: TaskRecord, state: TaskState): TaskOverview {
  const { status } = record.summary;
  const overview: TaskOverview = {
    objective: state.objective,
    pendingApprovals: state.approvals.filter((approval) => approval.decision === undefined),
    children: state.children.map(({ childTaskId, status, result }) =>
      result === undefined ? { childTaskId, status } : { childTaskId, status, result },
    ),
  };
  if (state.agent !== undefined) overview.agent = state.agent;
  if (state.model !== undefined) overview.model = state.model;
  if (state.parentTaskId !== undefined) overview.parentTaskId = state.parentTaskId;
  if (state.metadata !== undefined) overview.metadata = state.metadata;
  if (state.result !== undefined && status === "completed") overview.result = state.result;
  if (state.error !== undefined && status === "failed") overview.error = state.error;
  return overview;
}
