/** End a caller's task for good (and its children); a task that has ended is refused by core (409). */

import type { Store } from "@sema-agent/core";
import { cancel } from "@sema-agent/core";
import type { Caller } from "../ingress/caller.ts";
import { sanitizeText } from "../ingress/sanitize.ts";
import { ownTask } from "./own-task.ts";

const REASON_MAX_CHARS = 2000;

/** Cancel `taskId` as the caller; `path` names the reason in an error. */
export async function cancelTaskFor(
  store: Store,
  caller: Caller,
  taskId: string,
  reason: string | undefined,
  path = "body.reason",
): Promise<void> {
  await ownTask(store, taskId, caller);
  const clean = reason === undefined ? undefined : sanitizeText(reason, "user", REASON_MAX_CHARS, path);
  await cancel(store, taskId, { actor: caller.actor, ...(clean === undefined ? {} : { reason: clean }) });
}
