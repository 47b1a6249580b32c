/**
 * Approvals through MCP elicitation: when the client declared the capability, each call waiting
 * for approval is put to the client's person (`elicitation/create`) with the tool, each of its
 * arguments (see `approvalPrompt`) and the digest, and the answer is recorded as a decision of the
 * MCP session's actor, bound to that digest, exactly as `POST /v1/tasks/{id}/approvals/{callId}`
 * records one. A person who cancels leaves the call waiting (decide it later with
 * `decide_approval`); declining denies it.
 */
import { ElicitResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { isSemaError, loadTaskOverview, type TaskRecord } from "@sema-agent/core";
import type { Caller } from "../ingress/caller.ts";
import { decideTaskApproval } from "../tasks/decide-task-approval.ts";
import type { TaskDeps } from "../tasks/task-deps.ts";
import { approvalPrompt } from "./approval-prompt.ts";
import type { ToolExtra } from "./progress.ts";

/** Refusals that mean the call was settled elsewhere meanwhile, not that this answer was wrong. */
const SETTLED_ELSEWHERE: ReadonlySet<string> = new Set(["ApprovalConflict", "ApprovalNotFound", "TaskFinished"]);

const REQUESTED_SCHEMA: {
  type: "object";
  properties: Record<string, { type: "string"; title: string; description: string; enum?: string[] }>;
  required: string[];
} = {
  type: "object",
  properties: {
    decision: { type: "string", title: "Decision", enum: ["approve", "deny"], description: "Run the call, or not." },
    reason: { type: "string", title: "Reason", description: "Why (optional, recorded with the decision)." },
  },
  required: ["decision"],
};

/**
 * Ask the person about each pending approval of `record`'s task the caller may decide; true when
 * every pending approval got a decision.
 */
export async function elicitApprovals(
  deps: TaskDeps,
  caller: Caller,
  record: TaskRecord,
  extra: ToolExtra,
): Promise<boolean> {
  const overview = await loadTaskOverview(deps.store, record);
  const canApprove = deps.canApprove(caller);
  let all = true;
  for (const approval of overview.pendingApprovals) {
    const call = {
      ...approval,
      taskPrincipal: record.principal,
      ...(overview.agent === undefined ? {} : { taskAgent: overview.agent }),
    };
    // Never ask a person whose answer would be refused: the call waits for someone who may decide.
    if (!(await canApprove(caller.actor, caller.principal, call))) {
      all = false;
      continue;
    }
    const answer = await extra.sendRequest(
      {
        method: "elicitation/create",
        params: {
          message: approvalPrompt(record.taskId, approval.name, approval.inputJson, approval.digest),
          requestedSchema: REQUESTED_SCHEMA,
        },
      },
      ElicitResultSchema,
      { signal: extra.signal },
    );
    if (answer.action === "cancel") {
      all = false;
      continue;
    }
    const content = answer.content ?? {};
    const decision = answer.action === "accept" && content.decision === "approve" ? "approve" : "deny";
    const reason = typeof content.reason === "string" && content.reason.trim() !== "" ? content.reason : undefined;
    try {
      await decideTaskApproval(
        deps,
        caller,
        record.taskId,
        approval.callId,
        { decision, digest: approval.digest, ...(reason === undefined ? {} : { reason }) },
        "elicitation",
      );
    } catch (error) {
      // Decided by someone else while the person thought, or the task ended: the log has the
      // answer, and the wait reads it from there.
      if (!isSemaError(error) || !SETTLED_ELSEWHERE.has(error.code)) throw error;
    }
  }
  return all;
}
