/**
 * The fold of `task_forked` (docs/guide/time-travel.md): the events before it are a copy of
 * another task's log, and here the copy becomes a task of its own. A fork is a root task; the
 * model and settings edits take effect; the approvals it may not spend wait again and its grants
 * go; an open leg is closed without an end time (its calls stay open: unstarted ones run in the
 * fork's next leg, one in doubt stays in doubt); the children still running are detached.
 */
import { mergeModelSettings } from "../protocol/model-settings.ts";
import type { TaskForkedEvent, TaskSettings } from "../protocol/task-event.ts";
import type { TaskState } from "./task-state.ts";

/** What the model is told about a call whose child task was still running when the task was forked. */
export const DETACHED_CHILD_CONTENT =
  "This task is a fork of another, made while this call's sub-task was still running; the sub-task's result went to the original task, not to this one. Call again if you still need it.";

/**
 * Apply `event` to the fold's own (mutable) state `s`; returns the calls that waited for a
 * detached child, which the fold answers with {@link DETACHED_CHILD_CONTENT}.
 */
export function foldForked(s: TaskState, event: TaskForkedEvent): Set<string> {
  // A fork is a root task of its own; an import keeps its place under its imported parent.
  if (event.origin === "fork") {
    delete s.parentTaskId;
    delete s.reportedEnd;
  }
  delete s.legStartedAt;
  if (event.model !== undefined) s.model = event.model;
  if (event.settings !== undefined) {
    const merged: TaskSettings = mergeModelSettings(s.settings, event.settings);
    if (s.settings?.output !== undefined) merged.output = s.settings.output;
    s.settings = merged;
  }
  const reopened = event.reopenedApprovals;
  if (reopened !== undefined)
    s.approvals = s.approvals.map((approval) => {
      if (!reopened.includes(approval.callId)) return approval;
      const { decision: _decision, actor: _actor, reason: _reason, ...pending } = approval;
      return pending;
    });
  const revoked = event.revokedGrants;
  if (revoked !== undefined) s.grantedTools = s.grantedTools.filter((tool) => !revoked.includes(tool));
  const callIds = new Set<string>();
  const detached = event.detachedChildren;
  if (detached === undefined) return callIds;
  for (const child of s.children)
    if (detached.includes(child.childTaskId) && child.callId !== undefined) callIds.add(child.callId);
  s.children = s.children.filter((child) => !detached.includes(child.childTaskId));
  return callIds;
}
