/**
 * The task operations a host calls: start, send input, interrupt, cancel, wake. Each takes a
 * store and ids and nothing that must stay alive between calls; each is one conditional append,
 * retried when another writer got in first.
 */

import { buildHumanInputEvent } from "../../core/human-input-projection.ts";
import { sanitizeHumanText } from "../../core/human-text.ts";
import { isTerminal } from "../../core/task-summary.ts";
import { newId } from "../../internal/ids.ts";
import type { Store, TaskRecord } from "../../ports/store.ts";
import { InputRejectedError, InvalidInputError, isSemaError, TaskFinishedError } from "../../protocol/errors.ts";
import type { HumanInputDelivery, HumanInputPolicy, HumanInputSource } from "../../protocol/human-input.ts";
import type { JsonValue } from "../../protocol/json.ts";
import type { TaskEvent } from "../../protocol/task-event.ts";
import type { ActorAssertion } from "../../protocol/transcript.ts";
import { appendToTask } from "./append-to-task.ts";

export interface StartTaskInput {
  /** The task's objective; recorded as `sanitizeHumanText` leaves it on the user lane. */
  objective: string;
  /** Whose authority the task runs on. Default `"local"` (a single-user host). */
  principal?: string;
  /** Who typed the objective; absent for a single-user host (the bytes stay unlabelled). */
  actor?: ActorAssertion;
  /** The agent's name, and the model id to record (resume uses it). */
  agent?: string;
  model?: string;
  taskId?: string;
  parentTaskId?: string;
  metadata?: { [key: string]: JsonValue };
}

/** Create a task: `task_created`, then its objective as a received input. Returns the task id. */
export async function startTask(store: Store, input: StartTaskInput): Promise<string> {
  if (typeof input.objective !== "string") throw new InvalidInputError("the objective must be a string");
  const principal = input.principal ?? "local";
  const text = sanitizeHumanText(input.objective, "user");
  const created: Extract<TaskEvent, { type: "task_created" }> = {
    type: "task_created",
    v: 1,
    objective: text,
    principal,
  };
  if (input.agent !== undefined) created.agent = input.agent;
  if (input.model !== undefined) created.model = input.model;
  if (input.parentTaskId !== undefined) created.parentTaskId = input.parentTaskId;
  if (input.actor !== undefined) created.actor = input.actor;
  if (input.metadata !== undefined) created.metadata = input.metadata;
  const objective = buildHumanInputEvent({
    carrier: "objective",
    source: "user",
    delivery: "received",
    sessionSeq: 0,
    text,
    principal,
    ...(input.actor === undefined
      ? {}
      : { actor: input.actor, ...(input.actor.issuer === undefined ? {} : { issuer: input.actor.issuer }) }),
  });
  const [first] = await store.createTask({
    ...(input.taskId === undefined ? {} : { taskId: input.taskId }),
    created,
    more: [objective],
  });
  return first?.taskId ?? "";
}

export interface SendInputOptions {
  /** The text; recorded as `sanitizeHumanText` leaves it for its lane. */
  text: string;
  /** `steer` (default), `nextTurn` or `wake`; a host may name its own. */
  carrier?: string;
  /** The lane; default `user`. */
  source?: HumanInputSource;
  actor?: ActorAssertion;
  /** What to do if a leg is running: `steer` (default), `queue`, `interrupt`, `reject`. */
  policy?: HumanInputPolicy;
  /** The leg it was meant for: if that leg has ended, the input is parked, not applied to another. */
  legId?: string;
  /**
   * An idempotency key: a sender that retries (a timed-out HTTP request, a crashed relay) passes
   * the same id, and an input already recorded under it is not recorded again.
   */
  inputId?: string;
}

export interface SentInput {
  inputId: string;
  delivery: HumanInputDelivery;
}

/**
 * Whether a leg is open on the task. A leg whose host died still counts: the leg that recovers it
 * delivers what was sent meanwhile as live steers, so nothing waits for a later resume.
 */
function isRunning(record: TaskRecord): boolean {
  return record.summary.status === "running" && record.summary.legId !== undefined;
}

/**
 * Record a human input. While a leg runs it is `received` (the leg applies it at its next step
 * boundary, or as its policy says); otherwise it is `parked` for the next leg.
 */
export async function sendInput(store: Store, taskId: string, options: SendInputOptions): Promise<SentInput> {
  if (typeof options.text !== "string") throw new InvalidInputError("input text must be a string");
  const source = options.source ?? "user";
  const text = sanitizeHumanText(options.text, source);
  const carrier = options.carrier ?? "steer";
  const inputId = options.inputId ?? newId();
  for (;;) {
    const record = await store.getTask(taskId);
    if (options.inputId !== undefined) {
      const earlier = await findInput(store, taskId, inputId);
      if (earlier !== undefined) return earlier;
    }
    const { status } = record.summary;
    if (status === "cancelled" || (isTerminal(status) && carrier !== "wake"))
      throw new TaskFinishedError(taskId, status);
    const running = isRunning(record);
    const forOtherLeg = options.legId !== undefined && options.legId !== record.summary.legId;
    const base = {
      inputId,
      carrier,
      source,
      sessionSeq: record.summary.sessionSeq,
      principal: record.principal,
      ...(options.actor === undefined
        ? {}
        : { actor: options.actor, ...(options.actor.issuer === undefined ? {} : { issuer: options.actor.issuer }) }),
      ...(options.policy === undefined ? {} : { policy: options.policy }),
      ...(options.legId === undefined ? {} : { legId: options.legId }),
    };
    const rejected = running && options.policy === "reject";
    const delivery: HumanInputDelivery = rejected ? "dropped" : running && !forOtherLeg ? "received" : "parked";
    const event = buildHumanInputEvent(
      rejected
        ? { ...base, delivery, reason: "rejected: a leg is running and the policy is reject" }
        : { ...base, delivery, text },
    );
    try {
      await store.append(taskId, [event], { expectedSeq: record.lastSeq });
    } catch (error) {
      if (isSemaError(error, "SeqConflict")) continue;
      throw error;
    }
    if (rejected) throw new InputRejectedError(taskId, inputId);
    return { inputId, delivery };
  }
}

/** The first recorded stage of an input, if it exists: its delivery as the sender was told. */
async function findInput(store: Store, taskId: string, inputId: string): Promise<SentInput | undefined> {
  const event = await store.findInput(taskId, inputId);
  return event?.type === "human_input" ? { inputId, delivery: event.delivery } : undefined;
}

/** Ask the running leg to stop at once and park (`parked:interrupt`). False when no leg runs. */
export async function interrupt(
  store: Store,
  taskId: string,
  options: { actor?: ActorAssertion } = {},
): Promise<boolean> {
  const appended = await appendToTask(store, taskId, (record) => {
    if (!isRunning(record)) return undefined;
    const event: TaskEvent = { type: "interrupt_requested", v: 1 };
    if (options.actor !== undefined) event.actor = { ...options.actor };
    return [event];
  });
  return appended !== undefined;
}

/**
 * End the task for good, and its children with it. A running leg stops at once; its tools see
 * their signal abort. A task that has ended — completed, failed or already cancelled — cannot be
 * cancelled: its outcome is history (`TaskFinishedError`, decided in the same conditional append,
 * so a task that completes while the cancel is on its way is never rewritten).
 */
export async function cancel(
  store: Store,
  taskId: string,
  options: { reason?: string; actor?: ActorAssertion } = {},
): Promise<void> {
  await cancelOne(store, taskId, options);
  for (const event of await store.read(taskId)) {
    if (event.type !== "child_task" || event.phase !== "spawned") continue;
    const child = await store.getTask(event.childTaskId).catch(() => undefined);
    if (child === undefined || isTerminal(child.summary.status)) continue;
    await cancel(store, event.childTaskId, {
      reason: `its parent task ${taskId} was cancelled`,
      ...(options.actor === undefined ? {} : { actor: options.actor }),
    }).catch((error: unknown) => {
      // The child ended on its own meanwhile: nothing left to cancel there.
      if (!isSemaError(error, "TaskFinished")) throw error;
    });
  }
}

async function cancelOne(
  store: Store,
  taskId: string,
  options: { reason?: string; actor?: ActorAssertion },
): Promise<void> {
  await appendToTask(store, taskId, (record) => {
    const { status } = record.summary;
    if (isTerminal(status)) throw new TaskFinishedError(taskId, status);
    const event: TaskEvent = { type: "task_cancelled", v: 1 };
    if (options.reason !== undefined) event.reason = options.reason;
    if (options.actor !== undefined) event.actor = options.actor;
    return [event];
  });
}

/**
 * Wake a task with a message from a machine (`system`) or a relayed third party (`external`,
 * named by `from`). A running task gets it as a steer; a parked or finished one starts a new leg.
 */
export async function wake(
  store: Store,
  taskId: string,
  options: { text: string; source: "system" | "external"; from?: string },
): Promise<SentInput> {
  const actor = options.from === undefined ? undefined : { id: options.from, verified: false };
  return sendInput(store, taskId, {
    text: options.text,
    carrier: "wake",
    source: options.source,
    ...(actor === undefined ? {} : { actor }),
  });
}

/** When a timer fires. */
export interface WakeAtOptions {
  /** The due time: a Date, an ISO-8601 string, or milliseconds since the epoch. */
  at: Date | string | number;
  text: string;
  source?: "system" | "external";
  from?: string;
}

/**
 * Set a durable timer: at `at`, the task is woken with `text` (a `system` wake by default). It is
 * stored in the log, so it survives restarts: whichever process next looks for runnable tasks after
 * it is due starts the leg. A task that is running gets it as a steer.
 */
export async function wakeAt(
  store: Store,
  taskId: string,
  options: WakeAtOptions,
): Promise<{ wakeId: string; due: string }> {
  const dueMs =
    options.at instanceof Date
      ? options.at.getTime()
      : typeof options.at === "number"
        ? options.at
        : Date.parse(options.at);
  if (!Number.isFinite(dueMs)) throw new InvalidInputError(`wakeAt: not a time: ${String(options.at)}`);
  const due = new Date(dueMs).toISOString();
  const wakeId = newId();
  await appendToTask(store, taskId, (record) => {
    if (record.summary.status === "cancelled") throw new TaskFinishedError(taskId, "cancelled");
    const event: TaskEvent = {
      type: "wake_scheduled",
      v: 1,
      wakeId,
      due,
      text: sanitizeHumanText(options.text, options.source ?? "system"),
      source: options.source ?? "system",
    };
    if (options.from !== undefined) event.from = options.from;
    return [event];
  });
  return { wakeId, due };
}

/**
 * Ask for a parked task's next leg, durably: the request is in the log, so a worker on any host
 * picks the task up (the model sees nothing of it). False when a leg already runs.
 */
export async function requestResume(
  store: Store,
  taskId: string,
  options: { actor?: ActorAssertion } = {},
): Promise<boolean> {
  const appended = await appendToTask(store, taskId, (record) => {
    const { status } = record.summary;
    if (isTerminal(status)) throw new TaskFinishedError(taskId, status);
    if (status !== "parked") return undefined;
    const event: TaskEvent = { type: "resume_requested", v: 1 };
    if (options.actor !== undefined) event.actor = { ...options.actor };
    return [event];
  });
  return appended !== undefined;
}
