/**
 * The decisions a copied log may not spend (docs/guide/time-travel.md, "Approvals in a copy"): an
 * approval whose call had not run at the copy's end, and every `tool-for-task` grant. A person
 * approved one run of one call in one task; a fork (or an import, whose file anyone could have
 * written) that ran the call on that decision would run it a second time, perhaps after an edit
 * the person never saw. So the `task_forked` names them and the copy asks again.
 */
import type { TaskState } from "../core/task-state.ts";
import type { TaskForkedEvent } from "../protocol/task-event.ts";

/**
 * The `reopenedApprovals` and `revokedGrants` of a copy whose state at its end is `state`;
 * `except` is a call the copy answers itself (a replaced tool result), whose approval is moot.
 */
export function unspentDecisions(
  state: TaskState,
  except?: string,
): Pick<TaskForkedEvent, "reopenedApprovals" | "revokedGrants"> {
  // An approval leaves the state when its call's result is recorded: those here have not run.
  const reopened = state.approvals
    .filter((approval) => approval.decision === "approve" && approval.callId !== except)
    .map((approval) => approval.callId);
  const out: Pick<TaskForkedEvent, "reopenedApprovals" | "revokedGrants"> = {};
  if (reopened.length > 0) out.reopenedApprovals = reopened;
  if (state.grantedTools.length > 0) out.revokedGrants = [...state.grantedTools];
  return out;
}
