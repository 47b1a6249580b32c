/**
 * The form of a child task's id, `<parent>~<callId>`: minted by the harness only. `startTask`
 * refuses an id of this form unless it names its parent, so no caller can create, ahead of a
 * delegation, the task the delegation will look for (issue 29, finding 2).
 */

/** What joins a parent's id and a call's id in a child's id; reserved for minted child ids. */
export const CHILD_ID_SEPARATOR = "~";

/** The child task's id for a parent's call: the same every time, so spawning is idempotent. */
export function childTaskId(parentTaskId: string, callId: string): string {
  return `${parentTaskId}${CHILD_ID_SEPARATOR}${callId}`;
}

/**
 * Why a task id may not be created with this parent, or undefined when it may: an id with the
 * separator must be a child id of the recorded parent (`<parentTaskId>~…`).
 */
export function reservedIdProblem(taskId: string, parentTaskId: string | undefined): string | undefined {
  if (!taskId.includes(CHILD_ID_SEPARATOR)) return undefined;
  if (parentTaskId !== undefined && taskId.startsWith(`${parentTaskId}${CHILD_ID_SEPARATOR}`)) return undefined;
  return `task id ${taskId}: "${CHILD_ID_SEPARATOR}" is reserved for the ids the harness gives sub-agent tasks (<parent>${CHILD_ID_SEPARATOR}<call>)`;
}
