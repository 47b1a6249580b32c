/**
 * Ownership, checked on every read, stream, input, approval and control: a task of another
 * principal is reported exactly like a task that does not exist, so ids leak nothing.
 */
import type { Store, TaskRecord } from "@sema-agent/core";
import { TaskNotFoundError } from "@sema-agent/core/protocol";
import type { Caller } from "../ingress/caller.ts";

export async function ownTask(store: Store, taskId: string, caller: Caller): Promise<TaskRecord> {
  const record = await store.getTask(taskId);
  if (record.principal !== caller.principal) throw new TaskNotFoundError(taskId);
  return record;
}
