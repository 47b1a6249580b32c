/**
 * The leg's view of the log: a `Folder` kept in step with the store, and the one way the leg
 * appends. Every append is conditional on the last seq the leg has folded and carries the lease;
 * when another writer got in first (a steer, a cancel, a decision), the leg folds what they wrote
 * and tries again, so it never acts on a state the log has moved past.
 */
import { canonicalJson } from "../../core/canonical-json.ts";
import { Folder, stateFromJson, stateToJson, type TaskState } from "../../core/fold.ts";
import { StateJson } from "../../core/state-json.ts";
import { isPersonEvent, laneOfSummary, type WorkLane } from "../../core/work-lane.ts";
import type { AppendOptions, ReadOptions, Store } from "../../ports/store.ts";
import { isSemaError, SeqConflictError } from "../../protocol/errors.ts";
import type { JsonValue } from "../../protocol/json.ts";
import type { Emit } from "../../protocol/stream-event.ts";
import type { StoredEvent, TaskEvent } from "../../protocol/task-event.ts";
import type { PaceLane } from "./leg-pacer.ts";
import type { ForeignInterrupts } from "./stop-signals.ts";
import { retryStoreUnavailable, type StoreRetryPolicy } from "./store-retry.ts";

/** Whether `stored` are exactly `events` as written (the stamps aside). */
function sameEvents(stored: readonly StoredEvent[], events: readonly TaskEvent[]): boolean {
  if (stored.length !== events.length) return false;
  return stored.every((event, i) => {
    const { taskId: _t, seq: _s, at: _a, ...body } = event;
    const expected = events[i];
    return (
      expected !== undefined && canonicalJson(body as JsonValue) === canonicalJson(expected as unknown as JsonValue)
    );
  });
}

/** `event`, or, for a tool result the store refused as too large, an error result saying so. */
function withinLimit(event: TaskEvent, tooLarge: ReadonlyMap<string, string>): TaskEvent {
  if (event.type !== "tool_result") return event;
  const refusal = tooLarge.get(event.callId);
  if (refusal === undefined) return event;
  const message = `the tool's result was not recorded: ${refusal}`;
  const replaced: TaskEvent = {
    type: "tool_result",
    v: 1,
    callId: event.callId,
    name: event.name,
    status: "error",
    content: `Error (ContentTooLarge): ${message}.`,
    error: { name: "ContentTooLarge", message },
  };
  if (event.durationMs !== undefined) replaced.durationMs = event.durationMs;
  if (event.legId !== undefined) replaced.legId = event.legId;
  return replaced;
}

/** Load a task's state: the latest usable snapshot, then the events after it. */
export async function loadState(store: Store, taskId: string): Promise<{ folder: Folder; events: StoredEvent[] }> {
  const snapshot = await store.latestSnapshot(taskId);
  const from = snapshot === undefined ? undefined : stateFromJson(snapshot.v, snapshot.state);
  const folder = new Folder(from);
  const events = await store.read(taskId, { afterSeq: from === undefined ? 0 : (snapshot?.seq ?? 0) });
  folder.applyAll(events);
  return { folder, events };
}

/** What the leg's writer needs: built before the leg has an id (a task with no work gets none). */
export interface WriterContext {
  readonly store: Store;
  readonly taskId: string;
  readonly leaseToken: string;
  /** Every stored event goes here as it is folded. */
  readonly emit: Emit;
  /** Store a snapshot after this many events since the last one. */
  readonly snapshotEvery: number;
  /** How long to ride out `StoreUnavailable`. */
  readonly retry: StoreRetryPolicy;
  readonly foreign: ForeignInterrupts;
}

/** Events below which a leg's closing snapshot is skipped (folding 100 events takes microseconds). */
const SHORT_LOG = 100;

export class LegWriter {
  readonly #ctx: WriterContext;
  readonly #folder: Folder;
  /** Snapshot text, remembering each transcript entry's JSON for the leg's later snapshots. */
  readonly #stateJson = new StateJson();
  #sinceSnapshot = 0;
  /** True while nothing can have been appended by others since the leg last read or appended. */
  #current = false;
  /**
   * The lane of the leg's appends (`core/work-lane.ts`): `person` from the moment the leg knows a
   * person waits (the task was runnable for a person, or a person's event arrived) until the model
   * request that carries what they sent; a store that batches writes runs those appends first.
   */
  #lane: WorkLane;
  /** A person's event arrived while this leg runs (not only a task runnable for a person): see `paceLane`. */
  #attended = false;

  /** `folder`: the task's state as loaded; the writer keeps it in step with the store from then on. */
  constructor(ctx: WriterContext, folder: Folder) {
    this.#ctx = ctx;
    this.#folder = folder;
    this.#lane = laneOfSummary(folder.state.summary);
    // Runnable for a person who acted on it (an input, a decision, a resume), not a new task's
    // first step: thousands of tasks created at once must not pass a person steering one.
    this.#attended = this.#lane === "person" && folder.state.summary.status !== "created";
  }

  /** The lane the leg's appends ride now. */
  get lane(): WorkLane {
    return this.#lane;
  }

  /**
   * How the leg's steps take turns on the event loop (`leg-pacer.ts`): `attended` from a person's
   * event arriving during the leg until the request that carries it, else the lane.
   */
  get paceLane(): PaceLane {
    return this.#attended ? "attended" : this.#lane;
  }

  /** A person's event was seen (by the step's watcher, before the leg folds it): appends go first. */
  personArrived(): void {
    this.#lane = "person";
    this.#attended = true;
  }

  /**
   * The model request is going out with everything the leg has folded: a person who waited for it
   * is served, so the leg's appends go back to the routine lane (unless inputs still wait).
   */
  requestSent(): void {
    if (this.#lane === "person" && this.state.inputs.length === 0) {
      this.#lane = "routine";
      this.#attended = false;
    }
  }

  get state(): TaskState {
    return this.#folder.state;
  }

  #take(events: StoredEvent[], foreign: boolean): void {
    const { emit } = this.#ctx;
    for (const event of events) {
      this.#folder.apply(event);
      emit(event);
      if (foreign) {
        this.#ctx.foreign.see(event);
        if (isPersonEvent(event)) this.personArrived();
      }
    }
    this.#sinceSnapshot += events.length;
  }

  /** Fold whatever others appended since the leg last looked. Returns those events. */
  async refresh(): Promise<StoredEvent[]> {
    const afterSeq = this.state.lastSeq;
    const events = await this.#call(() =>
      this.#ctx.store.read(this.#ctx.taskId, this.#withLane<ReadOptions>({ afterSeq })),
    );
    this.#take(events, true);
    this.#current = true;
    return events;
  }

  /**
   * Whether the leg must refresh: not when its own append has just confirmed it is at the end of
   * the log (a conditional append succeeds only then). Saves a read per turn; a steer landing in
   * the instant between that append and this check is delivered at the next boundary instead.
   */
  get stale(): boolean {
    return !this.#current;
  }

  /** Time is about to pass (a model call, a tool): others may append meanwhile. */
  markStale(): void {
    this.#current = false;
  }

  /**
   * Append events that are facts whatever else happened (a tool's result, a retry note): on a
   * conflict the leg folds the newcomers and appends the same events after them.
   */
  async append(events: TaskEvent[]): Promise<StoredEvent[]> {
    if (!events.some(isChildResult)) return this.appendWhen(() => events);
    // A child's result is the one fact that may have arrived meanwhile from elsewhere (the child's
    // own report): the parent records each child's end once, so its budget is released once.
    return this.appendWhen((state) =>
      events.filter((event) => !isChildResult(event) || endsRunningChild(state, event)),
    );
  }

  /**
   * Append what `decide` says given the current state, re-deciding after every conflict; `decide`
   * returns undefined when, given what arrived, there is nothing to append any more.
   */
  async appendWhen(decide: (state: TaskState) => TaskEvent[] | undefined): Promise<StoredEvent[]> {
    /** Tool results the store refused as too large, by call id: recorded as errors instead. */
    const tooLarge = new Map<string, string>();
    for (;;) {
      const decided = decide(this.state);
      if (decided === undefined || decided.length === 0) return [];
      const events = tooLarge.size === 0 ? decided : decided.map((event) => withinLimit(event, tooLarge));
      try {
        const stored = await this.#appendOnce(events, this.state.lastSeq);
        this.#take(stored, false);
        this.#current = true;
        return stored;
      } catch (error) {
        if (isSemaError(error, "ContentTooLarge")) {
          // A tool's result over the store's maxEventBytes fails that call, not the leg: the
          // model is told, and the task goes on. Any other event over it fails the leg's step.
          const index = (error.details as { index?: unknown } | undefined)?.index;
          const refused = typeof index === "number" ? events[index] : undefined;
          if (refused?.type !== "tool_result" || tooLarge.has(refused.callId)) throw error;
          tooLarge.set(refused.callId, error.message);
          continue;
        }
        if (!isSemaError(error, "SeqConflict")) throw error;
        await this.refresh();
      }
    }
  }

  /** Run `work`; only once it fails with `StoreUnavailable` does the retry policy come in. */
  async #call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!isSemaError(error, "StoreUnavailable")) throw error;
      return retryStoreUnavailable(work, this.#ctx.retry);
    }
  }

  /**
   * `options` in the leg's lane: a store that queues work runs a person's reads and appends ahead
   * of the routine ones (at 10,000 legs on one PostgreSQL pool, a routine read waited seconds).
   */
  #withLane<T extends { lane?: AppendOptions["lane"] }>(options: T): T {
    if (this.#lane === "person") options.lane = this.#attended ? "attended" : "person";
    return options;
  }

  /**
   * One conditional append, retried while the store is unavailable. A failure can hide a commit
   * (the connection broke after the database committed), so a retry first looks at what follows
   * `expectedSeq`: its own events there mean the append landed; anyone else's are a conflict.
   */
  async #appendOnce(events: TaskEvent[], expectedSeq: number): Promise<StoredEvent[]> {
    const options = this.#withLane<AppendOptions>({ expectedSeq, leaseToken: this.#ctx.leaseToken });
    try {
      return await this.#ctx.store.append(this.#ctx.taskId, events, options);
    } catch (error) {
      if (!isSemaError(error, "StoreUnavailable")) throw error;
    }
    return retryStoreUnavailable(async () => {
      const landed = await this.#ctx.store.read(
        this.#ctx.taskId,
        this.#withLane<ReadOptions>({ afterSeq: expectedSeq, limit: events.length }),
      );
      if (sameEvents(landed, events)) return landed;
      if (landed.length > 0)
        throw new SeqConflictError(this.#ctx.taskId, expectedSeq, landed.at(-1)?.seq ?? expectedSeq);
      return this.#ctx.store.append(this.#ctx.taskId, events, options);
    }, this.#ctx.retry);
  }

  /** Whether enough events have passed since the last snapshot for the next. */
  snapshotDue(): boolean {
    return this.#sinceSnapshot >= Math.max(this.#ctx.snapshotEvery, Math.floor(this.state.lastSeq / 2));
  }

  /**
   * Store a snapshot when enough events have passed since the last one, or at the end of a leg.
   * A snapshot costs O(state), so they are spaced geometrically (a new one once the events since
   * the last make up half the log): the cost per event stays constant however long the task
   * grows, and a resume never folds more than half the log. At a leg's end one is stored whatever
   * the spacing: the next leg, and every read of the task's state (`GET /v1/tasks/{id}` folds
   * from the latest snapshot), then fold nothing — for a finished task too.
   */
  async maybeSnapshot(atLegEnd = false): Promise<void> {
    if (this.#sinceSnapshot === 0 || (!atLegEnd && !this.snapshotDue())) return;
    // A log this short folds from its start about as fast as from a snapshot: not worth a write.
    if (atLegEnd && this.state.lastSeq < Math.min(this.#ctx.snapshotEvery, SHORT_LOG)) return;
    await this.#ctx.store.putSnapshot({
      taskId: this.#ctx.taskId,
      seq: this.state.lastSeq,
      v: this.state.v,
      state: stateToJson(this.state),
      stateJson: this.#stateJson.of(this.state),
    });
    this.#sinceSnapshot = 0;
  }
}

function isChildResult(event: TaskEvent): boolean {
  return event.type === "child_task" && event.phase === "result";
}

/** Whether a child's result is news to `state`: the child is not known to have ended yet. */
function endsRunningChild(state: TaskState, event: TaskEvent): boolean {
  if (event.type !== "child_task") return true;
  const known = state.children.find((child) => child.childTaskId === event.childTaskId);
  return known === undefined || known.status === "running";
}
