/** A caller's task as `GET /v1/tasks/{id}` shows it, and a page of the caller's tasks. */
import { loadTaskOverview, type Store, type TaskStatus } from "@sema-agent/core";
import type { Caller } from "../ingress/caller.ts";
import type { TaskDetailBody, TaskListItemBody } from "../schemas/tasks.ts";
import { ownTask } from "./own-task.ts";
import { taskDetail, taskListItem } from "./task-view.ts";

/** The task's detail: its record's summary and the few events it points at (cost independent of the log). */
export async function readTaskDetail(store: Store, caller: Caller, taskId: string): Promise<TaskDetailBody> {
  const record = await ownTask(store, taskId, caller);
  return taskDetail(record, await loadTaskOverview(store, record));
}

/** The caller's tasks, newest first; with `forkedFrom`, only its forks (and imports) of that task. */
export async function listTasksOf(
  store: Store,
  caller: Caller,
  query: {
    status?: TaskStatus | undefined;
    cursor?: string | undefined;
    limit?: number | undefined;
    forkedFrom?: string | undefined;
  },
): Promise<{ tasks: TaskListItemBody[]; nextCursor?: string }> {
  const page = await store.listTasks({
    principal: caller.principal,
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(query.forkedFrom === undefined ? {} : { forkedFrom: query.forkedFrom }),
    ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    limit: query.limit ?? 50,
  });
  const tasks = await Promise.all(page.tasks.map((record) => taskListItem(store, record)));
  return page.nextCursor === undefined ? { tasks } : { tasks, nextCursor: page.nextCursor };
}
