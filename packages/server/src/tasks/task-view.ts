/** What `GET /v1/tasks` and `GET /v1/tasks/{taskId}` show of a task, from its record and its overview. */
import type { JsonValue, Store, TaskOverview, TaskRecord } from "@sema-agent/core";
import type { TaskDetailBody, TaskListItemBody } from "../schemas/tasks.ts";

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
  if (summary.forkedFrom !== undefined) item.forkedFrom = { ...summary.forkedFrom };
  if (summary.scores !== undefined) item.scores = scoresOf(summary.scores);
  return item;
}

/** The summary's verdicts, copied (a read never hands out the store's own objects). */
function scoresOf(scores: NonNullable<TaskRecord["summary"]["scores"]>): NonNullable<TaskDetailBody["scores"]> {
  return Object.fromEntries(Object.entries(scores).map(([scorer, score]) => [scorer, { ...score }]));
}

function parsed(inputJson: string): JsonValue {
  try {
    return JSON.parse(inputJson) as JsonValue;
  } catch {
    return inputJson;
  }
}

/** The detail of a task from its record and `loadTaskOverview` of that same record. */
export function taskDetail(record: TaskRecord, overview: TaskOverview): TaskDetailBody {
  const { summary } = record;
  const detail: TaskDetailBody = {
    taskId: record.taskId,
    objective: overview.objective,
    status: summary.status,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    lastSeq: record.lastSeq,
    usage: summary.usage,
    pendingApprovals: overview.pendingApprovals.map((approval) => ({
      callId: approval.callId,
      name: approval.name,
      digest: approval.digest,
      inputJson: approval.inputJson,
      input: parsed(approval.inputJson),
      ...(approval.provenance === undefined ? {} : { provenance: approval.provenance }),
    })),
    children: overview.children.map((child) => ({
      taskId: child.childTaskId,
      status: child.status,
      ...(child.result === undefined ? {} : { result: child.result }),
    })),
  };
  if (summary.parkedReason !== undefined) detail.parkedReason = summary.parkedReason;
  if (summary.parkedDetail !== undefined) detail.parkedDetail = summary.parkedDetail;
  if (summary.legId !== undefined) detail.legId = summary.legId;
  if (overview.agent !== undefined) detail.agent = overview.agent;
  if (overview.model !== undefined) detail.model = overview.model;
  if (overview.parentTaskId !== undefined) detail.parentTaskId = overview.parentTaskId;
  if (summary.forkedFrom !== undefined) detail.forkedFrom = { ...summary.forkedFrom };
  if (summary.scores !== undefined) detail.scores = scoresOf(summary.scores);
  if (overview.metadata !== undefined) detail.metadata = overview.metadata;
  if (overview.result !== undefined) detail.result = overview.result;
  if (overview.error !== undefined) detail.error = overview.error;
  return detail;
}
