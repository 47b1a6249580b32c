/**
 * `GET /v1/approvals`: the calls waiting for a decision in the caller's tasks that the caller may
 * decide. Only parked tasks can wait (an approval parks its leg), so it walks the principal's
 * parked tasks by the store's status index, newest first, and per task with open approvals reads
 * its `task_created` and the `approval_requested` events its summary points at (`seqs.approvals`):
 * never a whole log, but for a summary stored before those seqs existed, which is folded.
 */
import type { Store, StoredEvent, TaskRecord } from "@sema-agent/core";
import { EVENT_SEQS_VERSION } from "@sema-agent/core/protocol";
import { badRequest } from "../http-error.ts";
import type { Caller } from "../ingress/caller.ts";
import type { InboxApprovalBody } from "../schemas/approvals-inbox.ts";
import type { TaskDeps } from "./task-deps.ts";
import { parsed } from "./task-view.ts";

/** Tasks read per store page: the inbox cursor counts in these pages, so it is fixed. */
const TASK_PAGE = 100;
/** Tasks one request looks at, at most: past it, the page ends (perhaps short) with a cursor. */
const MAX_TASKS_SCANNED = 1000;

/** Where an inbox page starts: a store page's cursor (none: the first) and how many of its tasks to skip. */
interface InboxPosition {
  cursor: string | undefined;
  skip: number;
}

/** `<skip>~<store cursor>`: the store's cursor is opaque, and kept as it is. */
function encodePosition(position: InboxPosition): string {
  return `${position.skip}~${position.cursor ?? ""}`;
}

function decodePosition(text: string): InboxPosition {
  const match = /^(\d{1,4})~(.*)$/s.exec(text);
  if (match === null) throw badRequest("query.cursor: not a cursor this route gave", "query.cursor");
  const cursor = match[2] ?? "";
  return { skip: Number(match[1]), cursor: cursor === "" ? undefined : cursor };
}

/** One task's `task_created` and the `approval_requested` events of its open approvals. */
async function waitingCalls(
  store: Store,
  record: TaskRecord,
): Promise<{ created?: StoredEvent; requested: StoredEvent[] }> {
  const { seqs, openApprovals } = record.summary;
  if (seqs?.v === EVENT_SEQS_VERSION) {
    const at = (seq: number) => store.read(record.taskId, { afterSeq: seq - 1, limit: 1 }).then(([event]) => event);
    const approvalSeqs = openApprovals.flatMap((callId) =>
      Object.hasOwn(seqs.approvals, callId) ? [seqs.approvals[callId] as number] : [],
    );
    const [created, ...requested] = await Promise.all([at(1), ...approvalSeqs.filter((seq) => seq >= 1).map(at)]);
    return {
      ...(created === undefined ? {} : { created }),
      requested: requested.filter((event): event is StoredEvent => event?.type === "approval_requested"),
    };
  }
  // A summary stored before seqs existed: read the log once (rare, and only with open approvals).
  const events = await store.read(record.taskId);
  const open = new Set(openApprovals);
  const latest = new Map<string, StoredEvent>();
  for (const event of events)
    if (event.type === "approval_requested" && open.has(event.callId)) latest.set(event.callId, event);
  return { ...(events[0] === undefined ? {} : { created: events[0] }), requested: [...latest.values()] };
}

/** The caller's inbox page: at most `limit` calls, and where the next page starts. */
export async function approvalInbox(
  deps: TaskDeps,
  caller: Caller,
  query: { cursor?: string | undefined; limit?: number | undefined },
): Promise<{ approvals: InboxApprovalBody[]; nextCursor?: string }> {
  const { store } = deps;
  const limit = query.limit ?? 50;
  const canApprove = deps.canApprove(caller);
  let position = query.cursor === undefined ? { cursor: undefined, skip: 0 } : decodePosition(query.cursor);
  const approvals: InboxApprovalBody[] = [];
  let scanned = 0;
  for (;;) {
    const page = await store.listTasks({
      principal: caller.principal,
      status: "parked",
      limit: TASK_PAGE,
      ...(position.cursor === undefined ? {} : { cursor: position.cursor }),
    });
    for (let index = position.skip; index < page.tasks.length; index++) {
      const record = page.tasks[index] as TaskRecord;
      if (record.summary.openApprovals.length > 0) {
        const found = await decidable(store, record, caller, canApprove);
        // A page ends before a task whose calls would not fit (unless it is the first).
        if (approvals.length > 0 && approvals.length + found.length > limit)
          return { approvals, nextCursor: encodePosition({ cursor: position.cursor, skip: index }) };
        approvals.push(...found);
      }
      scanned++;
      const next = { cursor: position.cursor, skip: index + 1 };
      if (approvals.length >= limit || scanned >= MAX_TASKS_SCANNED) {
        const more = index + 1 < page.tasks.length || page.nextCursor !== undefined;
        return more ? { approvals, nextCursor: encodePosition(next) } : { approvals };
      }
    }
    if (page.nextCursor === undefined) return { approvals };
    position = { cursor: page.nextCursor, skip: 0 };
  }
}

async function decidable(
  store: Store,
  record: TaskRecord,
  caller: Caller,
  canApprove: ReturnType<TaskDeps["canApprove"]>,
): Promise<InboxApprovalBody[]> {
  const { created, requested } = await waitingCalls(store, record);
  const first = created?.type === "task_created" ? created : undefined;
  const items: InboxApprovalBody[] = [];
  for (const event of requested) {
    if (event.type !== "approval_requested") continue;
    const { callId, name, inputJson, digest, provenance } = event;
    const call = {
      callId,
      name,
      inputJson,
      digest,
      ...(provenance === undefined ? {} : { provenance }),
      taskPrincipal: record.principal,
      ...(first?.agent === undefined ? {} : { taskAgent: first.agent }),
    };
    if (!(await canApprove(caller.actor, caller.principal, call))) continue;
    items.push({
      taskId: record.taskId,
      objective: first?.objective ?? "",
      ...(first?.agent === undefined ? {} : { agent: first.agent }),
      callId,
      name,
      digest,
      inputJson,
      input: parsed(inputJson),
      ...(provenance === undefined ? {} : { provenance }),
      requestedAt: event.at,
    });
  }
  return items;
}
