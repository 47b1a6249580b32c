/**
 * `runLeg`: one leg of a task, from start / resume / wake / recovery until it parks or ends
 * (design §3 ring 3). Everything it knows comes from the log and everything it decides goes back to
 * it before it acts, so killing it between any two instructions loses nothing: the next leg folds
 * the log and carries on.
 */
import type { TaskState } from "../../core/fold.ts";
import { isEndReportDue, isTerminal } from "../../core/task-summary.ts";
import { abortCheaply } from "../../internal/abort.ts";
import { newId } from "../../internal/ids.ts";
import { InvalidInputError, isSemaError } from "../../protocol/errors.ts";
import type { Emit } from "../../protocol/stream-event.ts";
import type { LegStartedEvent, TaskEvent } from "../../protocol/task-event.ts";
import { defaultHolder, type HarnessOptions } from "../agent.ts";
import { validateLegArguments } from "../config/harness-options-schema.ts";
import { DEFAULTS, wallClock } from "../defaults.ts";
import { childAgent, reportToParent } from "../delegation/child-tasks.ts";
import { LegWriter, loadState, type WriterContext } from "./event-writer.ts";
import { hasWork } from "./has-work.ts";
import { keepLease } from "./keep-lease.ts";
import type { LegOptions } from "./leg-options.ts";
import { type LegOutcome, outcomeOf } from "./leg-outcome.ts";
import { sharedLegPacer } from "./leg-pacer.ts";
import { enterLegHere, leaseHeldHere } from "./legs-here.ts";
import { scoreOnline } from "./online-scores.ts";
import { openingDeliveries } from "./opening-deliveries.ts";
import { ForeignInterrupts } from "./stop-signals.ts";
import { retryStoreUnavailable, type StoreRetryPolicy } from "./store-retry.ts";
import { acquireLeg } from "./take-lease.ts";
import { LegLoop } from "./turn-loop.ts";

export type { LegOptions } from "./leg-options.ts";

function inferTrigger(state: TaskState): LegStartedEvent["trigger"] {
  if (state.summary.legId !== undefined) return "recover";
  if (state.summary.status === "created") return "start";
  return isTerminal(state.summary.status) ? "wake" : "resume";
}

const noop: Emit = () => {};

/** Run a child task's leg in this process, as the agent its parent's delegation names. */
async function runChild(
  parent: HarnessOptions,
  childId: string,
  host: AbortSignal | undefined,
): Promise<LegOutcome | undefined> {
  const [created] = await parent.store.read(childId, { limit: 1 });
  const name = created?.type === "task_created" ? created.agent : undefined;
  const agent = childAgent(parent.agent, name);
  // The parent's sink is its own stream's; a child's events go to `childEmit` (its children's too).
  const { emit: _parentsSink, ...rest } = parent;
  const sink = rest.childEmit === undefined ? {} : { emit: rest.childEmit };
  try {
    return await runLeg({ ...rest, ...sink, agent }, childId, host === undefined ? {} : { signal: host });
  } catch (error) {
    // Another host (a worker) runs the child already: its end reports to the parent.
    if (isSemaError(error, "LeaseHeld")) return undefined;
    throw error;
  }
}

/**
 * The host's sink, guarded: it observes the leg and cannot stop or fail it, so a sink that throws
 * (a bug in a logger, a closed socket) loses its own events, not the leg.
 */
function withGuardedEmit(options: HarnessOptions): HarnessOptions {
  const emit = options.emit;
  if (emit === undefined) return options;
  return {
    ...options,
    emit: (event) => {
      try {
        emit(event);
      } catch {
        // An observer's failure is its own.
      }
    },
  };
}

/**
 * Run one leg of `taskId`: take the lease, fold the log, and work until the task parks or ends.
 * Throws `LeaseHeld` when another live host runs it, `LeaseLost` when the lease could not be kept,
 * `StoreUnavailable` when the store fails; the log is consistent in every case. A wrong agent or
 * options (a missing model, an unknown key) is a `ConfigError` before anything is touched.
 */
export async function runLeg(given: HarnessOptions, taskId: string, legOptions: LegOptions = {}): Promise<LegOutcome> {
  // Before anything is read or appended: a wrong configuration leaves no task "running".
  validateLegArguments(given, legOptions, "runLeg");
  const options = withGuardedEmit(given);
  const { store } = options;
  const ttlMs = options.leaseTtlMs ?? DEFAULTS.leaseTtlMs;
  if (legOptions.lease !== undefined && legOptions.lease.taskId !== taskId)
    throw new InvalidInputError(`the lease given is for task ${legOptions.lease.taskId}, not ${taskId}`);
  const holderId = (legOptions.lease?.holder ?? options.holder ?? defaultHolder()).id;
  const clock = options.clock ?? wallClock;
  const leaveHere = enterLegHere(holderId, taskId);
  if (leaveHere === undefined) throw await leaseHeldHere(store, taskId, holderId, clock);
  try {
    return await runLeased(options, taskId, legOptions, ttlMs, clock);
  } finally {
    leaveHere();
  }
}

/**
 * Wait for the pacer's turn before a new task's first leg opens (`leg-pacer.ts`, the `person`
 * lane: behind other new tasks' openings only). A leg a person resumed or a routine one opens at
 * once: its wait would not be watched for a person's word, which a turn's wait is.
 */
async function openInTurn(options: HarnessOptions, writer: LegWriter): Promise<void> {
  if (options.pacing === false || writer.state.summary.status !== "created") return;
  const wait = sharedLegPacer.pace("person");
  if (wait !== undefined) await wait.turn;
}

/** `runLeg` once no other leg of the task runs in this process. */
async function runLeased(
  options: HarnessOptions,
  taskId: string,
  legOptions: LegOptions,
  ttlMs: number,
  clock: () => number,
): Promise<LegOutcome> {
  const { store } = options;
  const lease = legOptions.lease ?? (await acquireLeg(store, taskId, options.holder, ttlMs, options.holderDied));
  const lost = new AbortController();
  let loop: LegLoop | undefined;
  const stopLease = keepLease(store, taskId, lease.token, ttlMs, clock, () => {
    abortCheaply(lost);
    loop?.abortStep();
  });
  const host = legOptions.signal;
  const shutdown = legOptions.shutdown;
  const onHostAbort = () => loop?.abortStep();
  host?.addEventListener("abort", onHostAbort);
  shutdown?.addEventListener("abort", onHostAbort);
  let writer: LegWriter | undefined;
  const emit = options.emit ?? noop;
  // While the lease may still be live, a store outage is waited out; once it is lost, never.
  const retry: StoreRetryPolicy = {
    maxMs: ttlMs,
    signal: lost.signal,
    now: clock,
    onRetry: (error, attempt, delayMs) =>
      emit({
        type: "store_retry",
        taskId,
        attempt,
        delayMs,
        message: error instanceof Error ? error.message : String(error),
      }),
  };
  try {
    const { folder } = await retryStoreUnavailable(() => loadState(store, taskId), retry);
    const base: WriterContext = {
      store,
      taskId,
      leaseToken: lease.token,
      emit,
      snapshotEvery: options.snapshotEvery ?? DEFAULTS.snapshotEvery,
      retry,
      foreign: new ForeignInterrupts(),
    };
    writer = new LegWriter(base, folder);
    if (!hasWork(writer.state, clock())) {
      // A child whose end its parent was not told of (its host died in between): tell it now.
      if (isEndReportDue(writer.state.summary)) await reportToParent(store, taskId, writer.state);
      return outcomeOf(taskId, writer.state);
    }

    // A new task's first step opens in its turn: at 10,000 new tasks, their openings (the append
    // of leg_started, the first request) in one wave of microtasks held a person's steer for
    // 100 ms. Other legs open at once, as a leg woken by a person must (see `openInTurn`).
    await openInTurn(options, writer);
    const legId = newId();
    const trigger = legOptions.trigger ?? inferTrigger(writer.state);
    await writer.appendWhen((state) => {
      const events: TaskEvent[] = [];
      // A leg still open in the log belongs to a host that died: close it as crashed.
      if (state.summary.legId !== undefined)
        events.push({ type: "leg_ended", v: 1, legId: state.summary.legId, reason: "parked:crash" });
      events.push({ type: "leg_started", v: 1, legId, trigger, holder: lease.holder });
      events.push(...openingDeliveries(state, legId, options.randomBytes));
      return events;
    });
    const tools = options.agent.tools ?? [];
    const activeLoop = new LegLoop({
      ...base,
      legId,
      options,
      clock,
      agent: options.agent,
      tools: new Map(tools.map((tool) => [tool.name, tool])),
      signals: { host, shutdown, lost: lost.signal },
      writer,
      runChild: (childId) => runChild(options, childId, host),
    });
    loop = activeLoop;
    try {
      await activeLoop.run();
    } finally {
      activeLoop.dispose();
    }
    await reportToParent(store, taskId, writer.state);
    await scoreOnline(store, options.agent, taskId, writer.state.summary.status, emit, host ?? lost.signal);
    return outcomeOf(taskId, writer.state, legId);
  } finally {
    stopLease();
    host?.removeEventListener("abort", onHostAbort);
    shutdown?.removeEventListener("abort", onHostAbort);
    // Best effort: without this snapshot the next leg folds from an older one, nothing is lost.
    await writer?.maybeSnapshot(true).catch(() => undefined);
    await store.releaseLease(taskId, lease.token).catch(() => undefined);
  }
}
