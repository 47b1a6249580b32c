/** Which blobs an event references: what export, import, replay and deletion look for in a log. */

import type { TaskEvent } from "../protocol/task-event.ts";

/** The digests of the blobs an event references (an input's attachments, a user entry's parts). */
export function blobDigests(event: TaskEvent): string[] {
  if (event.type === "human_input") return (event.attachments ?? []).flatMap((a) => ("digest" in a ? [a.digest] : []));
  if (event.type === "user_message")
    return (event.parts ?? []).flatMap((part) => ("digest" in part ? [part.digest as string] : []));
  return [];
}
