/** Decide a call of the caller's task waiting for approval, bound to its digest, as the caller. */
import { decideApproval } from "@sema-agent/core";
import type { z } from "zod";
import type { Caller } from "../ingress/caller.ts";
import { sanitizeText } from "../ingress/sanitize.ts";
import type { DecideApprovalRequest } from "../schemas/actions.ts";
import { ownTask } from "./own-task.ts";
import type { TaskDeps } from "./task-deps.ts";

const REASON_MAX_CHARS = 2000;

/** The recorded decision; `path` prefixes the error paths. Core checks digest, role and principal. */
export async function decideTaskApproval(
  deps: TaskDeps,
  caller: Caller,
  taskId: string,
  callId: string,
  body: z.output<typeof DecideApprovalRequest>,
  path = "body",
): Promise<{ callId: string; decision: "approve" | "deny"; digest: string }> {
  const { store } = deps;
  const reason =
    body.reason === undefined ? undefined : sanitizeText(body.reason, "user", REASON_MAX_CHARS, `${path}.reason`);
  await ownTask(store, taskId, caller);
  const decided = await decideApproval(store, taskId, {
    callId,
    digest: body.digest,
    decision: body.decision,
    actor: caller.actor,
    principal: caller.principal,
    ...(reason === undefined ? {} : { reason }),
    ...(body.scope === undefined ? {} : { scope: body.scope }),
    canApprove: deps.canApprove(caller),
    ...(caller.traceContext === undefined ? {} : { traceContext: caller.traceContext }),
  });
  deps.workers?.notify(taskId);
  return { callId: decided.callId, decision: decided.decision, digest: decided.digest };
}
