/**
 * The turn loop of one leg: the leg's opening, then one turn after another until a step ends the
 * leg. A turn, top to bottom: the step boundary (fold what others wrote, stop if asked, deliver
 * due timers and steers), an answer already given finishes, the budget, compaction, the model
 * call, then the answer finishes or the tools run. Each step is a function of the running leg in
 * a file of its own beside this one, and says what the turn does next (`StepOutcome`).
 */

import { isPersonEvent } from "../../core/work-lane.ts";
import { abortCheaply } from "../../internal/abort.ts";
import { isSemaError } from "../../protocol/errors.ts";
import type { StoredEvent } from "../../protocol/task-event.ts";
import { LegHooks } from "../hooks/hook-runner.ts";
import { RequestBlobs, type RequestSettings, requestSettings } from "../model/model-request.ts";
import { ToolPhase } from "../tools/tool-phase.ts";
import { parkIfOverBudget } from "./budget-check.ts";
import { compactIfNeeded } from "./compaction-step.ts";
import { finishTask } from "./finish-task.ts";
import type { LegContext } from "./leg-context.ts";
import { failTask } from "./leg-end.ts";
import { openLeg } from "./leg-opening.ts";
import { type LegPacer, type PacerWait, sharedLegPacer } from "./leg-pacer.ts";
import { callModel } from "./model-step.ts";
import { OfferedTools } from "./offered-tools.ts";
import type { RunningLeg } from "./running-leg.ts";
import { atBoundary } from "./step-boundary.ts";
import type { StepOutcome } from "./step-outcome.ts";
import { StepWatch } from "./step-watch.ts";
import { isStopSignal, watchForStops } from "./stop-signals.ts";
import { runTools } from "./tool-step.ts";

/**
 * How long a leg waits in the pacer before it watches its log for a person's event: watching costs
 * a subscription and a read, and most waits end within a few slices; a person is served within it.
 */
const PACE_WATCH_AFTER_MS = 25;

/** One leg's loop: `runLeg` builds it once the leg has started, runs it, and disposes of it. */
export class LegLoop implements RunningLeg {
  readonly ctx: LegContext;
  readonly hooks: LegHooks;
  readonly toolPhase: ToolPhase;
  readonly blobs: RequestBlobs;
  readonly settings: RequestSettings;
  readonly offered: OfferedTools;
  #step = new AbortController();
  readonly #watch: StepWatch;
  /** Watches a wait in the pacer, armed later than a step's: most waits are over in a few slices. */
  readonly #paceWatch: StepWatch;
  readonly #pacer: LegPacer | undefined;
  #paceWait: PacerWait | undefined;

  constructor(ctx: LegContext) {
    this.ctx = ctx;
    this.#pacer = ctx.options.pacing === false ? undefined : sharedLegPacer;
    this.offered = new OfferedTools(ctx.agent);
    this.settings = requestSettings(ctx.agent, ctx.agent.tools ?? []);
    this.hooks = new LegHooks(ctx);
    this.blobs = new RequestBlobs(ctx.store);
    this.toolPhase = new ToolPhase(ctx, this.hooks, {
      signal: () => this.stepSignal(),
      blobs: () => this.#gateBlobs(),
      watched: (work) => this.watched(work),
    });
    const arm = () => watchForStops(ctx.store, ctx.taskId, ctx.writer.state.lastSeq, (event) => this.stopSignal(event));
    this.#watch = new StepWatch(arm);
    this.#paceWatch = new StepWatch(arm, PACE_WATCH_AFTER_MS);
  }

  /**
   * Run the leg until a step ends it. An event of the leg's own over the store's `maxEventBytes`
   * (a model's answer, say; a tool's result is recorded as an error instead, see `LegWriter`)
   * fails the task with `ContentTooLarge` and ends the leg: the host goes on, the task is not lost.
   */
  async run(): Promise<void> {
    try {
      let outcome: StepOutcome = await openLeg(this);
      while (outcome !== "ended") outcome = await this.#turn();
    } catch (error) {
      if (!isSemaError(error, "ContentTooLarge")) throw error;
      await failTask(this, "ContentTooLarge", `an event of this leg was refused by the store: ${error.message}`);
    }
  }

  /**
   * One turn, its steps in order. A step says `next` to go on, `again` to begin the next turn at
   * once (its boundary handles what came first), `ended` when the leg is over. Work the state
   * says is not there is not awaited (compaction here; timers, steers, waits in the steps), so an
   * instant turn pays for few promises.
   */
  async #turn(): Promise<StepOutcome> {
    const turnPace = this.#pace();
    if (turnPace !== undefined) await this.#waitForTurn(turnPace);
    if ((await atBoundary(this)) === "ended") return "ended";
    // The agent has answered without tool calls (maybe in a leg that then died): it would finish.
    const last = this.ctx.writer.state.transcript.at(-1);
    if (last?.role === "assistant" && last.toolCalls.length === 0) return finishTask(this, last.text);
    if ((await parkIfOverBudget(this)) === "ended") return "ended";
    if (this.ctx.options.agent.compaction !== undefined) await compactIfNeeded(this);
    const answered = await callModel(this);
    if (answered === "again" || answered === "ended") return answered;
    // The model answered: the wave of answers that came with it takes its turn on the loop.
    const answerPace = this.#pace();
    if (answerPace !== undefined) await this.#waitForTurn(answerPace);
    // A final answer goes in with the task's completion, when nothing else comes first.
    if (answered.turn.toolCalls.length === 0) return finishTask(this, answered.turn.text, answered.event);
    return runTools(this, answered);
  }

  /**
   * Wait for this step's turn on the event loop (`leg-pacer.ts`): at once for a person's step or
   * in a quiet process, else at the next slice. No promise is awaited when none is needed.
   */
  #pace(): PacerWait | undefined {
    return this.#pacer?.pace(this.ctx.writer.paceLane);
  }

  /**
   * Wait in the pacer with the log watched, as a step is: a person's event for this task (a
   * steer, an interrupt, a decision) promotes the wait, and the leg goes at once in their lane.
   */
  async #waitForTurn(wait: PacerWait): Promise<void> {
    this.#paceWait = wait;
    try {
      await this.#paceWatch.run(() => wait.turn);
    } finally {
      this.#paceWait = undefined;
    }
  }

  /** Abort the current step for a stop signal the leg has not folded yet (from the watcher). */
  stopSignal(event: StoredEvent): void {
    if (event.seq <= this.ctx.writer.state.lastSeq) return;
    // Another writer appended: the next boundary folds it (a wait in the pacer did not mark it).
    this.ctx.writer.markStale();
    if (isStopSignal(event, this.ctx.legId)) abortCheaply(this.#step);
    // A person waits for what the leg does next: its appends until the request go first.
    if (isPersonEvent(event)) {
      this.ctx.writer.personArrived();
      this.#paceWait?.promote();
    }
  }

  /** Abort the current step (host abort, lost lease). */
  abortStep(): void {
    abortCheaply(this.#step);
  }

  /** Stop the leg's timers (the leg is over). */
  dispose(): void {
    this.#watch.dispose();
    this.#paceWatch.dispose();
  }

  /** Run one step with a watcher armed if it takes a while; others may append meanwhile. */
  watched<T>(work: () => Promise<T>): Promise<T> {
    this.ctx.writer.markStale();
    return this.#watch.run(work);
  }

  /** The current step's signal: a new one after an abort the loop has handled, aborted at once if a stop is pending. */
  stepSignal(): AbortSignal {
    if (this.#step.signal.aborted) this.#step = new AbortController();
    const { host, shutdown, lost } = this.ctx.signals;
    if (host?.aborted === true || shutdown?.aborted === true || lost.aborted) abortCheaply(this.#step);
    return this.#step.signal;
  }

  /**
   * The blobs of the transcript for the provenance gate: those the last request carried, or read
   * now (a call recovered in a fresh leg). A blob the store lacks is left out: the gate then counts
   * its attachment as opaque, which holds more, never less.
   */
  async #gateBlobs(): Promise<ReadonlyMap<string, Uint8Array>> {
    const transcript = this.ctx.writer.state.transcript;
    const content = this.blobs.current(transcript) ?? (await this.blobs.resolve(transcript).catch(() => undefined));
    return content?.blobs ?? new Map();
  }
}
