/**
 * One AG-UI run as Server-Sent Events: `RUN_STARTED`, the run's own events, then the log from
 * where the request left it, followed live (stored events from `store.watch`, which loses nothing;
 * text deltas from this process's hub) until the leg it started ends, and `RUN_FINISHED` (or
 * `RUN_ERROR`) with the outcome the task is left in. A client that goes away stops the stream,
 * never the task; so does the revocation of the token that opened it (`RUN_ERROR`, code
 * `TokenRevoked`).
 */
import { EventType, PROTOCOL_VERSION } from "@ag-ui/core";
import { loadTaskOverview, loadTaskState, type StoredEvent, type TaskRecord } from "@sema-agent/core";
import type { EphemeralEvent } from "@sema-agent/core/protocol";
import type { Caller } from "../ingress/caller.ts";
import { watchToken } from "../ingress/token-watch.ts";
import type { RouteDeps } from "../routes/deps.ts";
import { type AgUiEvent, AgUiEventMap } from "./event-map.ts";
import { approvalInterrupt } from "./interrupts.ts";

/** What one run streams. */
export interface RunStreamOptions {
  deps: RouteDeps;
  taskId: string;
  runId: string;
  /** The log position before the request appended anything: the run shows what follows it. */
  afterSeq: number;
  /** The task's model-turn count at that position. */
  sessionSeq: number;
  /** Sent right after `RUN_STARTED` (what the request itself did). */
  first: AgUiEvent[];
  /** Follow the log until a leg ends; false: nothing will run, finish at once. */
  follow: boolean;
  /** Results the client sent in this run (not echoed back). */
  fromClient: ReadonlySet<string>;
  /** The request's signal: aborted when the client goes away. */
  signal: AbortSignal;
  /** Who opened the run: its token's revocation ends the stream (see `watchToken`). */
  caller: Caller;
}

/** Park reasons after which another leg comes by itself: the run goes on following the log. */
const COMES_BACK = new Set(["parked:crash", "parked:shutdown"]);

const encoder = new TextEncoder();

function frame(event: AgUiEvent): Uint8Array {
  return encoder.encode(`data: ${JSON.stringify(event)}\n\n`);
}

type Item = { stored: StoredEvent } | { delta: EphemeralEvent };

/** The run's events, in order, ending with its outcome. */
async function* runEvents(options: RunStreamOptions, signal: AbortSignal): AsyncGenerator<AgUiEvent> {
  const { deps, taskId } = options;
  yield { type: EventType.RUN_STARTED, threadId: taskId, runId: options.runId, protocolVersion: PROTOCOL_VERSION };
  yield* options.first;
  if (options.follow) {
    const map = new AgUiEventMap(options.sessionSeq, options.fromClient);
    let lastSeq = options.afterSeq;
    const queue: Item[] = [];
    let wake: (() => void) | undefined;
    const push = (item: Item) => {
      queue.push(item);
      wake?.();
    };
    const unsubscribe = deps.hub?.subscribe(taskId, (delta) => push({ delta })) ?? (() => {});
    // A model call already streaming when this run subscribed lost its first deltas: its text
    // comes whole with its stored turn. Deltas count from the first event stored after now.
    const joinedAt = (await deps.store.getTask(taskId)).lastSeq;
    let live = false;
    let watchDone = false;
    let watchError: unknown;
    void (async () => {
      try {
        for await (const stored of deps.store.watch(taskId, { afterSeq: lastSeq, signal })) push({ stored });
      } catch (error) {
        if (!signal.aborted) watchError = error;
      } finally {
        watchDone = true;
        wake?.();
      }
    })();
    /** A stored event's AG-UI events; true when it ends the run. */
    const onStored = async function* (event: StoredEvent): AsyncGenerator<AgUiEvent, boolean> {
      if (event.seq <= lastSeq) return false;
      lastSeq = event.seq;
      if (event.seq > joinedAt) live = true;
      yield* map.stored(event);
      if (event.type === "leg_ended") return !COMES_BACK.has(event.reason);
      if (event.type === "task_cancelled") return (await deps.store.getTask(taskId)).summary.legId === undefined;
      return false;
    };
    try {
      for (;;) {
        const item = queue.shift();
        if (item === undefined) {
          if (watchDone) {
            if (watchError !== undefined) throw watchError;
            return;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
          continue;
        }
        if ("stored" in item) {
          if (yield* onStored(item.stored)) break;
          continue;
        }
        // The first delta of a message: what was stored before it was emitted comes first, so a
        // slow watch can never put one turn's text into the message of the turn before.
        if (!map.open) {
          let ended = false;
          for (const event of await deps.store.read(taskId, { afterSeq: lastSeq })) {
            if (yield* onStored(event)) {
              ended = true;
              break;
            }
          }
          if (ended) break;
        }
        if (live) yield* map.delta(item.delta);
      }
      yield* map.close();
    } finally {
      unsubscribe();
    }
  }
  yield* await outcome(options, await deps.store.getTask(taskId));
}

/** How the run ends, from the state the task is left in. */
async function outcome(options: RunStreamOptions, record: TaskRecord): Promise<AgUiEvent[]> {
  const { deps, taskId, runId } = options;
  const { status, parkedReason, parkedDetail } = record.summary;
  const finished = (more: Record<string, unknown>): AgUiEvent => ({
    type: EventType.RUN_FINISHED,
    threadId: taskId,
    runId,
    ...more,
  });
  if (status === "failed") {
    const overview = await loadTaskOverview(deps.store, record);
    return [
      {
        type: EventType.RUN_ERROR,
        message: overview.error?.message ?? "the task failed",
        code: overview.error?.code ?? "Failed",
      },
    ];
  }
  if (status === "cancelled") return [finished({ outcome: { type: "cancelled" } })];
  if (status === "completed") {
    const overview = await loadTaskOverview(deps.store, record);
    return [
      finished({ outcome: { type: "success" }, ...(overview.result === undefined ? {} : { result: overview.result }) }),
    ];
  }
  if (status !== "parked") return [finished({ outcome: { type: "success" } })];
  if (parkedReason === "approval") {
    const overview = await loadTaskOverview(deps.store, record);
    const waiting = overview.pendingApprovals.filter((approval) => approval.decision === undefined);
    if (waiting.length > 0)
      return [finished({ outcome: { type: "interrupt", interrupts: waiting.map(approvalInterrupt) } })];
  }
  if (parkedReason === "interrupt") return [finished({ outcome: { type: "cancelled" } })];
  if (parkedReason === "tool") {
    const state = await loadTaskState(deps.store, taskId);
    const names = new Set((state.externalTools ?? []).map((tool) => tool.name));
    const pending = state.openToolCalls.filter((call) => names.has(call.name)).map((call) => call.callId);
    return [finished({ outcome: { type: "success", pendingToolCallIds: pending } })];
  }
  return [
    {
      type: EventType.CUSTOM,
      name: "sema.parked",
      value: { reason: parkedReason ?? null, detail: parkedDetail ?? null },
    },
    finished({ outcome: { type: "success" } }),
  ];
}

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store",
  "x-accel-buffering": "no",
};

/** The run as an SSE response, with a comment line every `heartbeatMs` to keep proxies open. */
export function runResponse(options: RunStreamOptions): Response {
  const stop = new AbortController();
  // The client went away: stop following the log (the task goes on).
  options.signal.addEventListener("abort", () => stop.abort(), { once: true });
  const events = runEvents(options, stop.signal);
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let unwatch = () => {};
  let closed = false;
  const finish = (controller?: ReadableStreamDefaultController<Uint8Array>) => {
    clearInterval(heartbeat);
    unwatch();
    stop.abort();
    if (closed) return;
    closed = true;
    controller?.close();
  };
  // Pulled: the next event is made only when the client has taken the last, so a slow client
  // holds the run back instead of a queue growing in the server.
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      heartbeat = setInterval(() => {
        if (!closed) controller.enqueue(encoder.encode(": keep-alive\n\n"));
      }, options.deps.limits.heartbeatMs);
      // The token that opened the run was revoked: the run's last event says so, and nothing of
      // the task follows it (the task itself goes on).
      unwatch = watchToken(options.caller, options.deps.limits.sseRecheckMs, () => {
        if (closed) return;
        controller.enqueue(
          frame({
            type: EventType.RUN_ERROR,
            message: "the token this run was opened with was revoked",
            code: "TokenRevoked",
          }),
        );
        finish(controller);
      });
    },
    async pull(controller) {
      try {
        const next = await events.next();
        if (closed) return;
        if (next.done === true) finish(controller);
        else controller.enqueue(frame(next.value));
      } catch (error) {
        if (closed || stop.signal.aborted) return finish();
        // The store failed mid-run: the task goes on; the client is told this run's stream broke.
        console.error("sema server: AG-UI run stream failed", error);
        controller.enqueue(
          frame({
            type: EventType.RUN_ERROR,
            message: "the run's stream failed; the task goes on",
            code: "Unavailable",
          }),
        );
        finish(controller);
      }
    },
    cancel() {
      closed = true;
      finish();
    },
  });
  return new Response(body, { headers: SSE_HEADERS });
}
