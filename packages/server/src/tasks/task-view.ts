/** What `GET /v1/tasks` and `GET /v1/tasks/{taskId}` show of a task, from its record and its folded log. */
import { fold, type JsonValue, type Store, stateFromJson, type TaskRecord, type TaskState } from "@sema-agent/core";
import type { TaskDetailBody, TaskListItemBody } from "../schemas/tasks.ts";

/** The task's state: the latest snapshot, if any, plus the events after it. */
export async function loadTaskState(store: Store, taskId: string): Promise<TaskState> {
  const snapshot = await store.latestSnapshot(taskId);
  const base = snapshot === undefined ? undefined : stateFromJson(snapshot.v, snapshot.state);
  const after = base === undefined ? 0 : (snapshot?.seq ?? 0);
  const events = await store.read(taskId, { afterSeq: after });
  return base === undefined ? fold(events) : fold(events, base);
}

export async function taskListItem(store: Store, record: TaskRecord): Promise<TaskListItemBody> {
  const [created] = await store.read(record.taskId, { limit: 1 });
  const { summary } = record;
  const item: TaskListItemBody = {
    taskId: record.taskId,
    objective: created?.type === "task_created" ? created.objective : "",
    status: summary.status,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    lastSeq: record.lastSeq,
    usage: summary.usage,
    openApprovals: [...summary.openApprovals],
  };
  if (summary.parkedReason !== undefined) item.parkedReason = summary.parkedReason;
  if (record.parentTaskId !== undefined) item.parentTaskId = record.parentTaskId;
  return item;
}

function parsed(inputJson: string): JsonValue {
  try {
    return JSON.parse(inputJson) as JsonValue;
  } catch {
    return inputJson;
  }
}

export function taskDetail(record: TaskRecord, state: TaskState): TaskDetailBody {
  const { summary } = state;
  const detail: TaskDetailBody = {
    taskId: record.taskId,
    objective: state.objective,
    status: summary.status,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    lastSeq: state.lastSeq,
    usage: summary.usage,
    pendingApprovals: state.approvals
      .filter((approval) => approval.decision === undefined)
      .map((approval) => ({
        callId: approval.callId,
        name: approval.name,
        digest: approval.digest,
        inputJson: approval.inputJson,
        input: parsed(approval.inputJson),
      })),
    children: state.children.map((child) => ({
      taskId: child.childTaskId,
      status: child.status,
      ...(child.result === undefined ? {} : { result: child.result }),
    })),
  };
  if (summary.parkedReason !== undefined) detail.parkedReason = summary.parkedReason;
  if (summary.parkedDetail !== undefined) detail.parkedDetail = summary.parkedDetail;
  if (summary.legId !== undefined) detail.legId = summary.legId;
  if (state.agent !== undefined) detail.agent = state.agent;
  if (state.model !== undefined) detail.model = state.model;
  if (state.parentTaskId !== undefined) detail.parentTaskId = state.parentTaskId;
  if (state.metadata !== undefined) detail.metadata = state.metadata;
  if (state.result !== undefined && summary.status === "completed") detail.result = state.result;
  if (state.error !== undefined && summary.status === "failed") detail.error = state.error;
  return detail;
}
