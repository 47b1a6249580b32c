/** What `GET /v1/tasks` and `GET /v1/tasks/{taskId}` show of a task, from its record and its overview. */
import {
  costUsd,
  type JsonValue,
  type ModelPrice,
  priceOf,
  type Store,
  type TaskOverview,
  type TaskRecord,
} from "@sema-agent/core";
import type { TaskDetailBody, TaskListItemBody } from "../schemas/tasks.ts";

/** Prices by model, to show a task's cost (the server's quota prices); none: no cost shown. */
export type Prices = Readonly<Record<string, ModelPrice>>;

/**
 * A task as lists show it: its record's summary and its first event (`task_created`: objective,
 * agent, model, creator), and `childCount` when given (see {@link countChildrenOf}). `usage.costUsd`
 * prices the task's tokens at its model's price in `prices`, when there is one (turns on another
 * model are counted at that price too).
 */
export async function taskListItem(
  store: Store,
  record: TaskRecord,
  prices?: Prices,
  childCount?: number,
): Promise<TaskListItemBody> {
  const [created] = await store.read(record.taskId, { limit: 1 });
  const { summary } = record;
  const first = created?.type === "task_created" ? created : undefined;
  const price = first?.model === undefined || prices === undefined ? undefined : priceOf(first.model, prices);
  const item: TaskListItemBody = {
    taskId: record.taskId,
    objective: first?.objective ?? "",
    status: summary.status,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    lastSeq: record.lastSeq,
    usage: price === undefined ? summary.usage : { ...summary.usage, costUsd: costUsd(summary.usage, price) },
    openApprovals: [...summary.openApprovals],
  };
  if (summary.parkedReason !== undefined) item.parkedReason = summary.parkedReason;
  if (record.parentTaskId !== undefined) item.parentTaskId = record.parentTaskId;
  if (childCount !== undefined) item.childCount = childCount;
  if (summary.forkedFrom !== undefined) item.forkedFrom = { ...summary.forkedFrom };
  if (summary.scores !== undefined) item.scores = scoresOf(summary.scores);
  if (first?.agent !== undefined) item.agent = first.agent;
  if (first?.model !== undefined) item.model = first.model;
  if (first?.actor !== undefined) item.createdBy = { actorId: first.actor.id, verified: first.actor.verified };
  return item;
}

/**
 * How many children each of `records` has, in one indexed query of the store (`countChildren`);
 * an empty map when the store cannot count them (then the items carry no `childCount`).
 */
export async function countChildrenOf(store: Store, records: readonly TaskRecord[]): Promise<Map<string, number>> {
  const [first] = records;
  if (first === undefined || store.countChildren === undefined) return new Map();
  return store.countChildren({ principal: first.principal, taskIds: records.map((record) => record.taskId) });
}

/** The summary's verdicts, copied (a read never hands out the store's own objects). */
function scoresOf(scores: NonNullable<TaskRecord["summary"]["scores"]>): NonNullable<TaskDetailBody["scores"]> {
  return Object.fromEntries(Object.entries(scores).map(([scorer, score]) => [scorer, { ...score }]));
}

/** A call's canonical input JSON parsed (the text itself if it does not parse). */
export function parsed(inputJson: string): JsonValue {
  try {
    return JSON.parse(inputJson) as JsonValue;
  } catch {
    return inputJson;
  }
}

/**
 * The detail of a task from its record and `loadTaskOverview` of that same record; with `prices`,
 * its model's price when there is one (the price its list item's `costUsd` is counted at), and
 * the whole table, which the studio prices each turn with at the model that ran it.
 */
export function taskDetail(record: TaskRecord, overview: TaskOverview, prices?: Prices): TaskDetailBody {
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
  const price = overview.model === undefined || prices === undefined ? undefined : priceOf(overview.model, prices);
  if (price !== undefined) detail.price = { ...price };
  if (prices !== undefined && Object.keys(prices).length > 0)
    detail.prices = Object.fromEntries(Object.entries(prices).map(([key, value]) => [key, { ...value }]));
  if (overview.parentTaskId !== undefined) detail.parentTaskId = overview.parentTaskId;
  if (summary.forkedFrom !== undefined) detail.forkedFrom = { ...summary.forkedFrom };
  if (summary.scores !== undefined) detail.scores = scoresOf(summary.scores);
  if (overview.metadata !== undefined) detail.metadata = overview.metadata;
  if (overview.result !== undefined) detail.result = overview.result;
  if (overview.error !== undefined) detail.error = overview.error;
  return detail;
}
