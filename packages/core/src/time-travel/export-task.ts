/**
 * `exportTask`: a task's log (and its children's, if asked) as an export file (see
 * `export-format.ts`), with the bytes of every image and file it references.
 */
import { blobDigests } from "../core/blob-digests.ts";
import { canonicalJson } from "../core/canonical-json.ts";
import { sha256Hex } from "../harness/tools/approvals.ts";
import { bytesToBase64 } from "../internal/base64.ts";
import type { Store } from "../ports/store.ts";
import { BlobNotFoundError, TaskNotFoundError } from "../protocol/errors.ts";
import type { JsonValue } from "../protocol/json.ts";
import { EXPORT_VERSION, type ExportLine } from "./export-format.ts";

export { blobDigests } from "../core/blob-digests.ts";

/** What to export: the children too, and whose task it must be. */
export interface ExportOptions {
  /** Also export the task's child tasks, and theirs (delegation), after it. Default false. */
  withChildren?: boolean;
  /** When given, a task of another principal is not found (`TaskNotFound`). */
  principal?: string;
  /** The export's time (default now). */
  now?: () => number;
}

/**
 * The export file of `taskId`, as text (JSON Lines, each line ending in a newline). `TaskNotFound`
 * for an unknown task or one of another `principal`; `BlobNotFound` when a referenced blob is gone.
 */
export async function exportTask(store: Store, taskId: string, options: ExportOptions = {}): Promise<string> {
  const root = await store.getTask(taskId);
  if (options.principal !== undefined && root.principal !== options.principal) throw new TaskNotFoundError(taskId);
  const lines: string[] = [];
  const write = (line: ExportLine) => lines.push(`${canonicalJson(line as unknown as JsonValue)}\n`);
  write({
    kind: "header",
    format: "sema-task-export",
    v: EXPORT_VERSION,
    exportedAt: new Date((options.now ?? Date.now)()).toISOString(),
    rootTaskId: taskId,
    blobs: "included",
  });
  const digests = new Set<string>();
  let events = 0;
  let tasks = 0;
  const queue = [taskId];
  const queued = new Set(queue);
  while (queue.length > 0) {
    const id = queue.shift() as string;
    const record = await store.getTask(id);
    const log = await store.read(id);
    tasks++;
    events += log.length;
    const line: ExportLine = { kind: "task", taskId: id, principal: record.principal, events: log.length };
    if (record.parentTaskId !== undefined && id !== taskId) line.parentTaskId = record.parentTaskId;
    write(line);
    for (const event of log) {
      write({ kind: "event", event: event as unknown as Record<string, unknown> });
      for (const digest of blobDigests(event)) digests.add(digest);
      if (options.withChildren === true && event.type === "child_task" && !queued.has(event.childTaskId)) {
        queued.add(event.childTaskId);
        queue.push(event.childTaskId);
      }
    }
  }
  for (const digest of [...digests].sort()) {
    const bytes = store.getBlob === undefined ? undefined : await store.getBlob(digest);
    if (bytes === undefined) throw new BlobNotFoundError(digest);
    write({ kind: "blob", digest, base64: bytesToBase64(bytes) });
  }
  const sha256 = await sha256Hex(lines.join(""));
  write({ kind: "end", tasks, events, blobs: digests.size, sha256 });
  return lines.join("");
}
