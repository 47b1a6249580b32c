/**
 * `importTask`: read an export file into a store. The whole file is checked before anything is
 * written — each line's shape, each event against the log's schema, the seqs, the blobs against
 * their digests, the counts and the SHA-256 of the end line — and refused with the line and the
 * reason. Each task gets a fresh id (an id in a file is never written as given: it could take the
 * form of one this store mints) and is written whole in one `createTask`, ending in a
 * `task_forked` of origin `import` that names the task as exported. Children are written before
 * their parent, so the root is the last task written.
 */
import { fold } from "../core/fold.ts";
import { CHILD_ID_SEPARATOR } from "../harness/delegation/child-id.ts";
import { sha256Hex } from "../harness/tools/approvals.ts";
import { base64ToBytes } from "../internal/base64.ts";
import { newId } from "../internal/ids.ts";
import type { Store } from "../ports/store.ts";
import { InvalidInputError } from "../protocol/errors.ts";
import {
  type StoredEvent,
  type TaskCreatedEvent,
  type TaskEvent,
  type TaskForkedEvent,
  taskEventSchema,
} from "../protocol/task-event.ts";
import { type ExportEnd, type ExportHeader, type ExportTaskLine, exportLineSchema } from "./export-format.ts";
import { blobDigests } from "./export-task.ts";
import { unspentDecisions } from "./unspent-decisions.ts";
import { unstamped } from "./unstamped.ts";

/** Whose the imported tasks are. */
export interface ImportOptions {
  /** The principal the tasks are imported for (a host passes the caller's). Default: the file's. */
  principal?: string;
}

/** What an import wrote: the new id of the root task, and every task's id in the file and in the store. */
export interface ImportResult {
  taskId: string;
  /** The root task's id in the file. */
  sourceTaskId: string;
  tasks: { from: string; to: string }[];
  events: number;
  blobs: number;
}

interface ParsedTask {
  line: ExportTaskLine;
  events: StoredEvent[];
}

/** A refusal naming the line (1-based) and the reason; nothing is written. */
function refuse(line: number, reason: string): InvalidInputError {
  return new InvalidInputError(`export file, line ${line}: ${reason}`, { line });
}

/** Check a whole export file; the tasks and blobs it holds, or the line it fails at and why. */
export async function parseExport(text: string): Promise<{
  header: ExportHeader;
  tasks: ParsedTask[];
  blobs: Map<string, Uint8Array>;
}> {
  const raw = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  let header: ExportHeader | undefined;
  let end: ExportEnd | undefined;
  const tasks: ParsedTask[] = [];
  const blobs = new Map<string, Uint8Array>();
  let hashed = "";
  for (let i = 0; i < raw.length; i++) {
    const n = i + 1;
    const source = raw[i] as string;
    if (end !== undefined) throw refuse(n, "nothing may follow the end line");
    let json: unknown;
    try {
      json = JSON.parse(source);
    } catch {
      throw refuse(n, "not JSON");
    }
    const parsed = exportLineSchema.safeParse(json);
    if (!parsed.success) throw refuse(n, issue(parsed.error.issues));
    const line = parsed.data;
    if (line.kind === "end") {
      end = line;
      if ((await sha256Hex(hashed)) !== line.sha256)
        throw refuse(n, "the SHA-256 of the lines before the end line does not match: the file was changed or cut");
      continue;
    }
    hashed += `${source}\n`;
    if (i === 0) {
      if (line.kind !== "header") throw refuse(n, "the first line must be the header");
      header = line;
      continue;
    }
    if (line.kind === "header") throw refuse(n, "a second header");
    if (line.kind === "task") {
      const previous = tasks.at(-1);
      if (previous !== undefined && previous.events.length !== previous.line.events)
        throw refuse(
          n,
          `task ${previous.line.taskId} has ${previous.events.length} events, its line says ${previous.line.events}`,
        );
      if (tasks.some((t) => t.line.taskId === line.taskId)) throw refuse(n, `task ${line.taskId} appears twice`);
      if (tasks.length === 0 && line.taskId !== header?.rootTaskId)
        throw refuse(n, "the first task must be the header's root task");
      // Every other task is a child of one before it, so the file's tree has no cycle, and no
      // task is its own parent (a host that looks a task's agent up its parents would never stop).
      if (tasks.length > 0 && !tasks.some((t) => t.line.taskId === line.parentTaskId))
        throw refuse(n, `task ${line.taskId} must be a child of a task before it in the file`);
      tasks.push({ line, events: [] });
      continue;
    }
    if (line.kind === "blob") {
      const bytes = decode(line.base64, n);
      if ((await sha256Bytes(bytes)) !== line.digest)
        throw refuse(n, `the bytes of blob ${line.digest} do not match its digest`);
      blobs.set(line.digest, bytes);
      continue;
    }
    const task = tasks.at(-1);
    if (task === undefined || blobs.size > 0) throw refuse(n, "an event outside a task's section");
    task.events.push(checkEvent(line.event, task, n));
  }
  if (header === undefined) throw refuse(1, "the file is empty");
  if (end === undefined) throw refuse(raw.length, "the end line is missing: the file was cut short");
  const last = tasks.at(-1);
  if (last !== undefined && last.events.length !== last.line.events)
    throw refuse(
      raw.length,
      `task ${last.line.taskId} has ${last.events.length} events, its line says ${last.line.events}`,
    );
  // The root's parent is left behind (an exported child arrives as a root), unless the file holds
  // it: then the root would end up a child of its own descendant. Its task_created is line 3.
  const root = tasks[0]?.events[0];
  if (root?.type === "task_created" && tasks.some((t) => t.line.taskId === root.parentTaskId))
    throw refuse(
      3,
      `task ${root.taskId} names as its parent ${String(root.parentTaskId)}, a task after it in the file`,
    );
  const events = tasks.reduce((sum, t) => sum + t.events.length, 0);
  if (end.tasks !== tasks.length || end.events !== events || end.blobs !== blobs.size)
    throw refuse(raw.length, "the end line's counts do not match the file");
  for (const task of tasks)
    for (const event of task.events)
      for (const digest of blobDigests(event))
        if (!blobs.has(digest)) throw refuse(raw.length, `blob ${digest} is referenced and not included`);
  return { header, tasks, blobs };
}

function issue(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  const first = issues[0];
  if (first === undefined) return "invalid";
  return first.path.length === 0 ? first.message : `${first.path.map(String).join(".")}: ${first.message}`;
}

function decode(base64: string, n: number): Uint8Array {
  try {
    return base64ToBytes(base64);
  } catch {
    throw refuse(n, "the blob is not base64");
  }
}

async function sha256Bytes(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

function checkEvent(raw: Record<string, unknown>, task: ParsedTask, n: number): StoredEvent {
  const { taskId, seq, at, ...rest } = raw;
  if (taskId !== task.line.taskId) throw refuse(n, `the event's taskId is not ${task.line.taskId}`);
  if (seq !== task.events.length + 1) throw refuse(n, `seq ${String(seq)} where ${task.events.length + 1} was due`);
  if (typeof at !== "string" || Number.isNaN(Date.parse(at))) throw refuse(n, "the event has no valid time (at)");
  const parsed = taskEventSchema.safeParse(rest);
  if (!parsed.success) throw refuse(n, `invalid ${String(rest.type)} event: ${issue(parsed.error.issues)}`);
  if (seq === 1 && parsed.data.type !== "task_created") throw refuse(n, "a task's first event must be task_created");
  // Ids are minted from the task lines, so a child's log must name the parent its line does (the
  // root's line names none: an exported child arrives as a root, its parent left behind).
  if (parsed.data.type === "task_created" && task.line.parentTaskId !== undefined)
    if (parsed.data.parentTaskId !== task.line.parentTaskId)
      throw refuse(n, `task_created names another parent than its task line (${task.line.parentTaskId})`);
  if (seq !== 1 && parsed.data.type === "task_created") throw refuse(n, "task_created after seq 1");
  return raw as unknown as StoredEvent;
}

/**
 * Import an export file into `store`. `InvalidInput` naming the line and the reason when any part
 * of the file is wrong, before anything is written; `ContentUnsupported` when the file carries
 * blobs and the store keeps none.
 */
export async function importTask(store: Store, text: string, options: ImportOptions = {}): Promise<ImportResult> {
  const { header, tasks, blobs } = await parseExport(text);
  if (blobs.size > 0 && store.putBlob === undefined)
    throw new InvalidInputError("the file carries images or files and this store keeps no blobs");
  const ids = new Map<string, string>();
  // Parents first to mint ids: a child's id is `<parent>~<call>`, so it follows its parent's.
  for (const task of tasks) {
    const from = task.line.taskId;
    const parent = task.line.parentTaskId;
    const mappedParent = parent === undefined ? undefined : ids.get(parent);
    const to =
      mappedParent !== undefined && parent !== undefined && from.startsWith(`${parent}${CHILD_ID_SEPARATOR}`)
        ? `${mappedParent}${from.slice(parent.length)}`
        : newId();
    ids.set(from, to);
  }
  for (const [digest, bytes] of blobs) await store.putBlob?.({ digest, bytes });
  // Children before parents: the root, written last, is there only when the whole import is.
  for (const task of [...tasks].reverse()) await writeTask(store, task, ids, options.principal);
  return {
    taskId: ids.get(header.rootTaskId) as string,
    sourceTaskId: header.rootTaskId,
    tasks: tasks.map((t) => ({ from: t.line.taskId, to: ids.get(t.line.taskId) as string })),
    events: tasks.reduce((sum, t) => sum + t.events.length, 0),
    blobs: blobs.size,
  };
}

async function writeTask(
  store: Store,
  task: ParsedTask,
  ids: ReadonlyMap<string, string>,
  principal: string | undefined,
): Promise<void> {
  const events = task.events.map((event) => remap(unstamped(event), task.line.taskId, ids, principal));
  const [created, ...more] = events as [TaskCreatedEvent, ...TaskEvent[]];
  const last = task.events.at(-1)?.seq ?? 1;
  const marker: TaskForkedEvent = {
    type: "task_forked",
    v: 1,
    origin: "import",
    source: { taskId: task.line.taskId, seq: last },
    // A file is what anyone could have written: no decision in it runs a call here.
    ...unspentDecisions(fold(events)),
  };
  await store.createTask({ taskId: ids.get(task.line.taskId) as string, created, more: [...more, marker] });
}

/** An event with the file's task ids replaced by the store's (and the principal, when one is given). */
function remap(
  event: TaskEvent,
  from: string,
  ids: ReadonlyMap<string, string>,
  principal: string | undefined,
): TaskEvent {
  if (event.type === "task_created") {
    const created: TaskCreatedEvent = { ...event };
    if (principal !== undefined) created.principal = principal;
    if (created.parentTaskId !== undefined) {
      const parent = ids.get(created.parentTaskId);
      if (parent === undefined) delete created.parentTaskId;
      else created.parentTaskId = parent;
    }
    return created;
  }
  if (event.type === "child_task") {
    // A child's id follows its parent's (`<parent>~<call>`), whether or not the file carries the child.
    const own = `${from}${CHILD_ID_SEPARATOR}`;
    const child =
      ids.get(event.childTaskId) ??
      (event.childTaskId.startsWith(own)
        ? `${ids.get(from) as string}${event.childTaskId.slice(from.length)}`
        : undefined);
    return child === undefined ? event : { ...event, childTaskId: child };
  }
  return event;
}
