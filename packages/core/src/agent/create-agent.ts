/**
 * `createAgent`: one call to run an agent. The handle is built on the task functions — `startTask`,
 * `runLeg` / `streamLeg`, `sendInput`, `decideApproval`, `loadTaskState` — and holds no task state:
 * a conversation is a task that finishes and is continued, and everything about it is in the store.
 */
import { MemoryStore } from "../adapters/memory-store.ts";
import { nextWakeAt } from "../core/task-summary.ts";
import type { Agent, HarnessOptions } from "../harness/agent.ts";
import { validateAgent } from "../harness/config/agent-schema.ts";
import { wallClock } from "../harness/defaults.ts";
import { childAgent } from "../harness/delegation/child-tasks.ts";
import type { LegOutcome } from "../harness/leg/leg-outcome.ts";
import { runLeg } from "../harness/leg/run-leg.ts";
import { streamLeg } from "../harness/leg/stream-leg.ts";
import { type SendInputOptions, type SentInput, sendInput } from "../harness/tasks/send-input.ts";
import { type StartTaskInput, startTask } from "../harness/tasks/start-task.ts";
import { loadTaskState } from "../harness/tasks/task-overview.ts";
import { type DecideApprovalOptions, type Decision, decideApproval } from "../harness/tools/approvals.ts";
import type { StandardSchemaV1 } from "../ports/standard-schema.ts";
import type { Store, TaskRecord } from "../ports/store.ts";
import type { Tool } from "../ports/tool.ts";
import type { Equal } from "../protocol/config-shape.ts";
import { isSemaError } from "../protocol/errors.ts";
import { MODEL_SETTING_KEYS } from "../protocol/model-settings.ts";
import type { StreamEvent } from "../protocol/stream-event.ts";
import type {
  AgentDefinition,
  AgentHandle,
  AgentHostOptions,
  AgentInput,
  AgentStream,
  ApproveOptions,
  ContinueOptions,
  OutputOf,
  RunOptions,
  RunResult,
  SendOptions,
} from "./agent-types.ts";
import { Channel } from "./channel.ts";
import { pendingApprovals, runResult } from "./run-result.ts";
import { harnessHooks } from "./typed-hooks.ts";

/** Runs one leg of a task and says how it ended. */
type LegRunner = (taskId: string, signal: AbortSignal | undefined) => Promise<LegOutcome>;

/**
 * The one place where a definition becomes the harness's `Agent` and host options. Request
 * settings and structured output join the `Agent` here as the harness learns them.
 */
function harnessOptions(
  definition: AgentDefinition<readonly Tool[], StandardSchemaV1 | undefined>,
  store: Store,
): HarnessOptions {
  const {
    store: _store,
    output,
    canApprove: _canApprove,
    tools,
    hooks,
    holder,
    holderDied,
    leaseTtlMs,
    pacing,
    emit,
    toolTimeoutMs,
    maxToolOutputChars,
    snapshotEvery,
    randomBytes,
    clock,
    childEmit,
    quota,
    traceparentOf,
    onToolError,
    ...rest
  } = definition;
  // Every host option is taken out above: one left in `rest` would land in the agent and be
  // refused as an unknown key, so a host option added to HarnessOptions fails the compile here.
  const noHostOptionLeft: Equal<Extract<keyof typeof rest, keyof AgentHostOptions>, never> = true;
  void noHostOptionLeft;
  const agent: Agent = { ...rest };
  // The harness asks the model for JSON matching it and corrects a wrong answer (design §4).
  if (output !== undefined) agent.output = output;
  if (tools !== undefined) agent.tools = [...tools];
  if (hooks !== undefined) agent.hooks = harnessHooks(tools ?? [], hooks);
  // Checked where it is given: a missing model or an unknown key is a ConfigError from
  // createAgent itself, never a failure inside a leg (runLeg's own check then costs nothing).
  validateAgent(agent, "createAgent", "definition");
  const options: HarnessOptions = { store, agent };
  if (holder !== undefined) options.holder = holder;
  if (holderDied !== undefined) options.holderDied = holderDied;
  if (leaseTtlMs !== undefined) options.leaseTtlMs = leaseTtlMs;
  if (pacing !== undefined) options.pacing = pacing;
  if (emit !== undefined) options.emit = emit;
  if (toolTimeoutMs !== undefined) options.toolTimeoutMs = toolTimeoutMs;
  if (maxToolOutputChars !== undefined) options.maxToolOutputChars = maxToolOutputChars;
  if (snapshotEvery !== undefined) options.snapshotEvery = snapshotEvery;
  if (randomBytes !== undefined) options.randomBytes = randomBytes;
  if (clock !== undefined) options.clock = clock;
  if (childEmit !== undefined) options.childEmit = childEmit;
  if (quota !== undefined) options.quota = quota;
  if (traceparentOf !== undefined) options.traceparentOf = traceparentOf;
  if (onToolError !== undefined) options.onToolError = onToolError;
  return options;
}

/** The one place where `run`'s input and options become `startTask`'s input. */
function startInput(
  agent: Agent,
  input: AgentInput,
  options: RunOptions<StandardSchemaV1 | undefined>,
): StartTaskInput {
  const start: StartTaskInput = { objective: input, model: agent.model.id };
  if (agent.name !== undefined) start.agent = agent.name;
  if (options.actor !== undefined) start.actor = options.actor;
  if (options.principal !== undefined) start.principal = options.principal;
  if (options.taskId !== undefined) start.taskId = options.taskId;
  if (options.metadata !== undefined) start.metadata = options.metadata;
  // A per-run schema is recorded on task_created, so a leg in any process asks for it.
  if (options.output !== undefined) start.output = options.output;
  for (const key of MODEL_SETTING_KEYS) if (options[key] !== undefined) Object.assign(start, { [key]: options[key] });
  return start;
}

/**
 * Whether the task has work for another leg now: what a worker would pick up (`runnable`), or a
 * timer that is due. A task parked for a person (approval, input, interrupt) or a later timer stops.
 */
function wantsAnotherLeg(record: TaskRecord, nowMs: number): boolean {
  if (record.summary.status === "cancelled") return false;
  const due = nextWakeAt(record.summary);
  return record.summary.runnable || (due !== undefined && due <= nowMs);
}

/** Whether the signal has aborted: read afresh, as an abort may land during any await. */
function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/**
 * Create an agent bound to a store (default: a new `MemoryStore`): the one call to run an agent.
 *
 * ```ts
 * const agent = createAgent({ model, tools: [add], store: new SqliteStore({ path: "sema.db" }) });
 * const { taskId, text } = await agent.run("What is 2 + 3?");
 * await agent.send(taskId, "And times 4?"); // a conversation is a task that finishes and is continued
 * const next = await agent.continue(taskId);
 * ```
 *
 * The handle keeps nothing of its tasks: any handle over the same store, in any process, drives
 * them. `hooks.beforeTool` / `afterTool` get calls typed by `tools`; `output` types `RunResult.output`.
 */
export function createAgent<
  const Tools extends readonly Tool[] = readonly [],
  Output extends StandardSchemaV1 | undefined = undefined,
>(definition: AgentDefinition<Tools, Output>): AgentHandle<Output> {
  const store = definition.store ?? new MemoryStore();
  const options = harnessOptions(definition, store);
  const canApprove = definition.canApprove;

  /** The task `run` means: a new one, or the existing one of an idempotent `taskId`. */
  async function begin(input: AgentInput, runOptions: RunOptions<StandardSchemaV1 | undefined>): Promise<string> {
    try {
      return await startTask(store, startInput(options.agent, input, runOptions));
    } catch (error) {
      if (runOptions.taskId !== undefined && isSemaError(error, "TaskExists")) return runOptions.taskId;
      throw error;
    }
  }

  /**
   * Legs of `taskId` until it stops having work here (or the signal aborts). Children the leg left
   * running in the background (a `delegate` call that does not wait) run here too, unless the
   * delegation says `runChildren: false`: their results wake the task, which runs on.
   */
  async function legsOf(
    harness: HarnessOptions,
    taskId: string,
    signal: AbortSignal | undefined,
    leg: LegRunner,
  ): Promise<void> {
    const runsChildren = harness.agent.delegation !== undefined && harness.agent.delegation.runChildren !== false;
    for (;;) {
      const outcome = await leg(taskId, signal);
      if (aborted(signal)) return;
      // Even a task with nothing to do may have children left waiting (its host stopped after its leg).
      const children = runsChildren ? await backgroundChildren(harness, taskId, signal) : 0;
      if (outcome.legId === undefined && children === 0) return;
      if (aborted(signal) || !wantsAnotherLeg(await store.getTask(taskId), (harness.clock ?? wallClock)())) return;
    }
  }

  /** Run the task's children that wait for a leg and that no host runs, each as its own agent; how many ran. */
  async function backgroundChildren(
    harness: HarnessOptions,
    taskId: string,
    signal: AbortSignal | undefined,
  ): Promise<number> {
    let ran = 0;
    const { children } = await loadTaskState(store, taskId);
    for (const { childTaskId, status } of children) {
      if (status !== "running" || aborted(signal)) continue;
      const record = await store.getTask(childTaskId).catch(() => undefined);
      if (record === undefined || !record.summary.runnable) continue;
      // As a child run in its parent's leg: its parent's agent names its agent, and its events are its own.
      const [created] = await store.read(childTaskId, { limit: 1 });
      const name = created?.type === "task_created" ? created.agent : undefined;
      const { emit: _parentsSink, ...rest } = harness;
      const child: HarnessOptions = { ...rest, agent: childAgent(harness.agent, name) };
      try {
        await legsOf(child, childTaskId, signal, (id, legSignal) =>
          runLeg(child, id, legSignal === undefined ? {} : { signal: legSignal }),
        );
        ran += 1;
      } catch (error) {
        // Another host (a worker) runs the child already: its end reports to the parent.
        if (!isSemaError(error, "LeaseHeld")) throw error;
      }
    }
    return ran;
  }

  /**
   * The one place where a call's options (`run`, `stream`, `continue`) become the harness options
   * of its legs. Today the definition's; a per-run setting the harness learns (the output schema,
   * request settings) joins the agent here.
   */
  function harnessFor(_schema: StandardSchemaV1 | undefined): HarnessOptions {
    return options;
  }

  /** `legsOf` the task, then its result. */
  async function drive<O>(
    taskId: string,
    signal: AbortSignal | undefined,
    schema: StandardSchemaV1 | undefined,
    leg: (harness: HarnessOptions) => LegRunner,
  ): Promise<RunResult<O>> {
    const harness = harnessFor(schema);
    await legsOf(harness, taskId, signal, leg(harness));
    return runResult<O>(store, taskId, schema);
  }

  const plainLeg =
    (harness: HarnessOptions): LegRunner =>
    (taskId, signal) =>
      runLeg(harness, taskId, signal === undefined ? {} : { signal });

  async function decide(
    taskId: string,
    callId: string,
    decision: "approve" | "deny",
    given: ApproveOptions,
  ): Promise<Decision> {
    const pending = (await pendingApprovals(store, taskId)).find((approval) => approval.callId === callId);
    const target = pending?.taskId ?? taskId;
    // A call that no longer waits: `decideApproval` says why (decided, already run, not found, finished).
    const digest =
      given.digest ??
      pending?.digest ??
      (await loadTaskState(store, taskId)).approvals.find((a) => a.callId === callId)?.digest ??
      "";
    const principal = given.principal ?? (await store.getTask(target)).principal;
    const recorded: Decision = { callId, digest, decision, actor: given.actor, principal };
    if (given.reason !== undefined) recorded.reason = given.reason;
    if (given.scope !== undefined && decision === "approve") recorded.scope = given.scope;
    const request: DecideApprovalOptions = canApprove === undefined ? recorded : { ...recorded, canApprove };
    await decideApproval(store, target, request);
    return recorded;
  }

  const handle: AgentHandle<Output> = {
    store,

    async run<R extends StandardSchemaV1 | undefined = Output>(input: AgentInput, runOptions: RunOptions<R> = {}) {
      const taskId = await begin(input, runOptions);
      return drive<OutputOf<R>>(taskId, runOptions.signal, runOptions.output ?? definition.output, plainLeg);
    },

    stream<R extends StandardSchemaV1 | undefined = Output>(
      input: AgentInput,
      runOptions: RunOptions<R> = {},
    ): AgentStream<OutputOf<R>> {
      const left = new AbortController();
      const signal = runOptions.signal === undefined ? left.signal : AbortSignal.any([runOptions.signal, left.signal]);
      const stop = () => left.abort();
      const events = new Channel<StreamEvent>(stop);
      const texts = new Channel<string>(stop);
      const streamedLeg =
        (harness: HarnessOptions): LegRunner =>
        async (taskId, legSignal) => {
          const leg = streamLeg(harness, taskId, legSignal === undefined ? {} : { signal: legSignal });
          for await (const event of leg) {
            events.push(event);
            if (event.type === "text_delta") texts.push(event.delta);
          }
          return leg.outcome;
        };
      const result = (async () => {
        const taskId = await begin(input, runOptions);
        return drive<OutputOf<R>>(taskId, signal, runOptions.output ?? definition.output, streamedLeg);
      })();
      result.then(
        () => {
          events.close();
          texts.close();
        },
        (error: unknown) => {
          events.close(error);
          texts.close(error);
        },
      );
      return {
        result,
        textStream: texts,
        [Symbol.asyncIterator]: () => events[Symbol.asyncIterator](),
      };
    },

    async send(taskId: string, input: AgentInput, sendOptions: SendOptions = {}): Promise<SentInput> {
      const base: SendInputOptions = { text: input };
      if (sendOptions.actor !== undefined) base.actor = sendOptions.actor;
      if (sendOptions.inputId !== undefined) base.inputId = sendOptions.inputId;
      try {
        return await sendInput(store, taskId, base);
      } catch (error) {
        // Completed or failed: the conversation goes on, as a follow-up that wakes the task.
        // Decided by `sendInput` in its own conditional append, so a task that ends meanwhile is seen.
        if (isSemaError(error, "TaskFinished") && error.details.status !== "cancelled")
          return sendInput(store, taskId, { ...base, carrier: "wake" });
        throw error;
      }
    },

    async continue<R extends StandardSchemaV1 | undefined = Output>(
      taskId: string,
      continueOptions: ContinueOptions<R> = {},
    ) {
      return drive<OutputOf<R>>(taskId, continueOptions.signal, continueOptions.output ?? definition.output, plainLeg);
    },

    approvals: (taskId) => pendingApprovals(store, taskId),
    approve: (taskId, callId, given) => decide(taskId, callId, "approve", given),
    deny: (taskId, callId, given) => decide(taskId, callId, "deny", given),
  };
  return handle;
}
