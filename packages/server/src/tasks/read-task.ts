/** A caller's task as `GET /v1/tasks/{id}` shows it, and a page of the caller's tasks. */
import { loadTaskOverview, type Store, type TaskStatus } from "@sema-agent/core";
import type { z } from "zod";
import { badRequest } from "../http-error.ts";
import type { Caller } from "../ingress/caller.ts";
import type { ListTasksQuery, TaskDetailBody, TaskListItemBody } from "../schemas/tasks.ts";
import { ownTask } from "./own-task.ts";
import { countChildrenOf, type Prices, taskDetail, taskListItem } from "./task-view.ts";

/**
 * The task's detail: its record's summary and the few events it points at (cost independent of the
 * log); with `prices`, the price of its model when there is one.
 */
export async function readTaskDetail(
  store: Store,
  caller: Caller,
  taskId: string,
  prices?: Prices,
): Promise<TaskDetailBody> {
  const record = await ownTask(store, taskId, caller);
  return taskDetail(record, await loadTaskOverview(store, record), prices);
}

/** What a listing of the caller's tasks may filter on (`GET /v1/tasks`, `/forks`). */
export interface TaskListQuery {
  status?: TaskStatus | undefined;
  cursor?: string | undefined;
  limit?: number | undefined;
  forkedFrom?: string | undefined;
  agent?: string | undefined;
  /** A piece of the objective, ignoring case. */
  q?: string | undefined;
  parentTaskId?: string | undefined;
  /** Only tasks without a parent. */
  roots?: boolean | undefined;
}

/** The filters of a `ListTasksQuery` (its `roots` a flag); `roots=true` with a `parentTaskId` is a 400. */
export function listQueryOf(query: z.infer<typeof ListTasksQuery>): TaskListQuery {
  const { roots, ...rest } = query;
  if (roots === "true" && query.parentTaskId !== undefined)
    throw badRequest("query.roots: not with parentTaskId (a child has a parent)", "query.roots");
  return { ...rest, roots: roots === "true" };
}

/**
 * The caller's tasks, newest first, filtered by `query`; each item priced at `prices` when given,
 * with its children counted (one query for the page).
 */
export async function listTasksOf(
  store: Store,
  caller: Caller,
  query: TaskListQuery,
  prices?: Prices,
): Promise<{ tasks: TaskListItemBody[]; nextCursor?: string }> {
  const page = await store.listTasks({
    principal: caller.principal,
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(query.forkedFrom === undefined ? {} : { forkedFrom: query.forkedFrom }),
    ...(query.agent === undefined ? {} : { agent: query.agent }),
    ...(query.q === undefined ? {} : { objectiveContains: query.q }),
    ...(query.parentTaskId === undefined ? {} : { parentTaskId: query.parentTaskId }),
    ...(query.roots === true ? { rootsOnly: true } : {}),
    ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    limit: query.limit ?? 50,
  });
  const children = await countChildrenOf(store, page.tasks);
  const tasks = await Promise.all(
    page.tasks.map((record) => taskListItem(store, record, prices, children.get(record.taskId))),
  );
  return page.nextCursor === undefined ? { tasks } : { tasks, nextCursor: page.nextCursor };
}
