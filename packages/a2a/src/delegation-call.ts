/**
 * One delegation, durably: record the message about to be sent, send it, record the remote task's
 * id as soon as the remote agent names it, then follow the task to an answer. A re-run after a
 * crash starts from the last record instead: it reattaches to the remote task (`SubscribeToTask`,
 * or `GetTask` when the task is over or the agent cannot stream), or finds out whether the message
 * it was sending had arrived before sending it again. The message is never sent twice.
 */
import { randomUUID } from "node:crypto";
import { type Message, type Part, Role, type StreamResponse, TaskState } from "@a2a-js/sdk";
import type { Client, RequestOptions } from "@a2a-js/sdk/client";
import type { ToolContext } from "@sema-agent/core";
import { A2AToolError } from "./a2a-tool-error.ts";
import { checkpointJson, type DelegationCheckpoint, readCheckpoint } from "./checkpoint.ts";
import type { A2AProgress } from "./options.ts";
import { artifactsText, messageText } from "./parts-text.ts";
import { RemoteTask, stateName } from "./remote-task.ts";

/** What the model passes to a delegation tool. */
export interface DelegateA2AInput {
  /** The sub-task, or the answer to a remote task that asked for input. */
  message: string;
  /** The remote task to continue (one that answered `input-required`). */
  taskId?: string | undefined;
  /** The remote conversation to continue (a follow-up to an earlier answer). */
  contextId?: string | undefined;
}

/** What one call needs besides its input. */
export interface CallSettings {
  toolName: string;
  agentUrl: string;
  client: () => Promise<Client>;
  onProgress: ((progress: A2AProgress) => void) | undefined;
}

/** The pause before each new look at a remote task whose stream ended while it still ran, growing to 2 s. */
const BACKOFF_MS = [0, 100, 250, 500, 1_000, 2_000];

/** A checkpoint that could not be written: the log's failure (a lost lease, a dead store), never the remote agent's. */
class CheckpointFailed extends Error {
  readonly failure: unknown;
  constructor(failure: unknown) {
    super("checkpoint failed");
    this.failure = failure;
  }
}

function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" };
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  if (ms === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

export class DelegationCall {
  readonly #input: DelegateA2AInput;
  readonly #context: ToolContext;
  readonly #settings: CallSettings;
  readonly #signal: AbortSignal;
  #client: Client | undefined;
  #messageId = "";
  /** The state last recorded, so a checkpoint is written once per state change. */
  #recorded: string | undefined;

  constructor(input: DelegateA2AInput, context: ToolContext, settings: CallSettings) {
    this.#input = input;
    this.#context = context;
    this.#settings = settings;
    this.#signal = context.signal;
  }

  /**
   * Each request's options: the call's signal, and the `traceparent` of the call's span when the
   * host traces (the SDK sends service parameters as HTTP headers), so the remote task joins this
   * trace. None without it.
   */
  #request(): RequestOptions {
    const traceparent = this.#context.traceparent;
    return traceparent === undefined
      ? { signal: this.#signal }
      : { signal: this.#signal, serviceParameters: { traceparent } };
  }

  async run(): Promise<string> {
    try {
      return await this.#run();
    } catch (error) {
      throw error instanceof CheckpointFailed ? error.failure : error;
    }
  }

  async #run(): Promise<string> {
    this.#client = await this.#settings.client();
    const last = readCheckpoint(this.#context.lastCheckpoint);
    if (last === "unreadable")
      throw this.#error("in-doubt", "The call's record from before the restart cannot be read; it was not sent again.");
    const task =
      last === undefined
        ? await this.#send(randomUUID(), this.#contextId(), this.#input.taskId)
        : await this.#resume(last);
    return this.#answer(task);
  }

  /**
   * The context to send in: the model's; for an answer to a remote task without one, empty (the
   * remote agent puts the message in that task's context); else a new one, chosen here so that a
   * crash mid-send can look the message up in it.
   */
  #contextId(): string {
    if (this.#input.contextId !== undefined) return this.#input.contextId;
    return this.#input.taskId === undefined ? randomUUID() : "";
  }

  /** After a crash: reattach to the task the record names, or learn whether the send arrived. */
  async #resume(last: DelegationCheckpoint): Promise<RemoteTask> {
    this.#messageId = last.messageId;
    if (last.phase === "accepted") {
      this.#recorded = last.state;
      return this.#follow(new RemoteTask(last.contextId, last.remoteTaskId));
    }
    const arrived = await this.#findSent(last);
    if (arrived !== undefined) return this.#follow(new RemoteTask(last.contextId, arrived));
    // The remote agent has no task with this message: it never arrived, so it is sent now, once.
    return this.#send(last.messageId, last.contextId, last.continues, true);
  }

  /**
   * The remote task that holds message `messageId`, if any: the continued task's history, or the
   * context's tasks (`ListTasks`). An agent that can tell neither leaves the call in doubt.
   */
  async #findSent(last: Extract<DelegationCheckpoint, { phase: "sending" }>): Promise<string | undefined> {
    const client = this.#need();
    const holds = (history: readonly Message[]) => history.some((message) => message.messageId === last.messageId);
    try {
      if (last.continues !== undefined) {
        const task = await client.getTask({ tenant: "", id: last.continues }, this.#request());
        return holds(task.history) ? task.id : undefined;
      }
      let pageToken = "";
      for (;;) {
        const page = await client.listTasks(
          {
            tenant: "",
            contextId: last.contextId,
            status: TaskState.TASK_STATE_UNSPECIFIED,
            pageToken,
            statusTimestampAfter: undefined,
          },
          this.#request(),
        );
        const found = page.tasks.find((task) => holds(task.history));
        if (found !== undefined) return found.id;
        if (page.nextPageToken === "" || page.tasks.length === 0) return undefined;
        pageToken = page.nextPageToken;
      }
    } catch (error) {
      this.#passThrough(error);
      throw this.#error(
        "in-doubt",
        `The host stopped while this message was being sent, and the remote agent cannot say whether it arrived (${describe(error)}). It was not sent again: check with the remote agent before repeating it.`,
        error,
      );
    }
  }

  /** Record the message about to be sent, send it, and follow the task it starts. */
  async #send(
    messageId: string,
    contextId: string,
    continues: string | undefined,
    recorded = false,
  ): Promise<RemoteTask> {
    this.#messageId = messageId;
    if (!recorded) {
      const sending: DelegationCheckpoint = { v: 1, phase: "sending", messageId, contextId };
      if (continues !== undefined) sending.continues = continues;
      await this.#checkpoint(sending);
    }
    const message: Message = {
      messageId,
      contextId,
      taskId: continues ?? "",
      role: Role.ROLE_USER,
      parts: [textPart(this.#input.message)],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    const task = new RemoteTask(contextId, continues);
    const stream = this.#need().sendMessageStream(
      { tenant: "", message, configuration: undefined, metadata: undefined },
      this.#request(),
    );
    try {
      await this.#consume(task, stream);
    } catch (error) {
      this.#passThrough(error);
      // Once the remote agent has named its task, a broken stream is only a lost view: follow it.
      if (task.remoteTaskId === undefined) throw this.#failure(error, task);
    }
    return task.final ? task : this.#follow(task);
  }

  /** Follow a known remote task until the call can answer: resubscribe, else read it. */
  async #follow(task: RemoteTask): Promise<RemoteTask> {
    const client = this.#need();
    for (let round = 0; !task.final; round++) {
      const id = task.remoteTaskId;
      if (id === undefined) throw this.#error("protocol", "The remote agent's stream ended before it named its task.");
      await wait(BACKOFF_MS[Math.min(round, BACKOFF_MS.length - 1)] ?? 0, this.#signal);
      let streamed = false;
      try {
        await this.#consume(task, client.resubscribeTask({ tenant: "", id }, this.#request()));
        streamed = true;
      } catch (error) {
        this.#passThrough(error);
        // A task that is over cannot be subscribed to; an agent may not stream at all: read it.
      }
      if (!streamed || !task.final)
        await this.#guard(task, async () => {
          task.apply({
            payload: { $case: "task", value: await client.getTask({ tenant: "", id }, this.#request()) },
          });
          await this.#recordState(task);
        });
    }
    return task;
  }

  /** Fold a stream's events, recording each new state, until the call can answer or the stream ends. */
  async #consume(task: RemoteTask, stream: AsyncGenerator<StreamResponse, void, undefined>): Promise<void> {
    try {
      for await (const event of stream) {
        task.apply(event);
        await this.#recordState(task);
        if (task.final) break;
      }
    } finally {
      await stream.return(undefined);
    }
  }

  /** A new remote state: recorded before the wait goes on (final states are followed by the result itself). */
  async #recordState(task: RemoteTask): Promise<void> {
    const id = task.remoteTaskId;
    if (id === undefined || task.directMessage !== undefined) return;
    const state = stateName(task.state);
    if (state === this.#recorded) return;
    this.#recorded = state;
    const text = task.shortText();
    const progress: A2AProgress = text === undefined ? { remoteTaskId: id, state } : { remoteTaskId: id, state, text };
    try {
      this.#settings.onProgress?.(progress);
    } catch {
      // A host's progress callback never fails the call.
    }
    if (task.final) return;
    const accepted: DelegationCheckpoint = {
      v: 1,
      phase: "accepted",
      messageId: this.#messageId,
      contextId: task.contextId,
      remoteTaskId: id,
      state,
    };
    if (text !== undefined) accepted.text = text;
    await this.#checkpoint(accepted);
  }

  async #checkpoint(checkpoint: DelegationCheckpoint): Promise<void> {
    try {
      await this.#context.checkpoint?.(checkpointJson(checkpoint));
    } catch (error) {
      throw new CheckpointFailed(error);
    }
  }

  /** An abort, or a failure of the log, goes up as it is: neither is the remote agent's doing. */
  #passThrough(error: unknown): void {
    if (error instanceof CheckpointFailed) throw error.failure;
    if (this.#signal.aborted || error instanceof A2AToolError) throw error;
  }

  /** Run a request; what fails on the way becomes an `A2AToolError` (an abort stays what it is). */
  async #guard(task: RemoteTask, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      this.#passThrough(error);
      throw this.#failure(error, task);
    }
  }

  /** A request that failed on the way (`unreachable`) or was answered with an A2A error (`protocol`). */
  #failure(error: unknown, task: RemoteTask): A2AToolError {
    const reason = error instanceof TypeError ? "unreachable" : "protocol";
    return this.#error(
      reason,
      `The A2A agent at ${this.#settings.agentUrl} failed the request: ${describe(error)}`,
      error,
      task.remoteTaskId,
    );
  }

  /** What the model is told: the answer, the question the remote agent asks, or why it failed. */
  #answer(task: RemoteTask): string {
    if (task.directMessage !== undefined)
      return messageText(task.directMessage) || "(the remote agent answered with no text)";
    const id = task.remoteTaskId ?? "";
    const said = messageText(task.statusMessage);
    const where = `[remote A2A task ${id}, context ${task.contextId}]`;
    switch (task.state) {
      case TaskState.TASK_STATE_COMPLETED: {
        const answer = artifactsText(task.artifacts) || said || "(the remote agent finished with no text)";
        return `${answer}\n${where}`;
      }
      case TaskState.TASK_STATE_INPUT_REQUIRED:
        return [
          `The remote agent needs more input before it can go on: ${said === "" ? "(it did not say what)" : said}`,
          `To answer, call ${this.#settings.toolName} again with taskId "${id}", contextId "${task.contextId}" and your answer as message.`,
          where,
        ].join("\n");
      case TaskState.TASK_STATE_AUTH_REQUIRED:
        throw this.#error(
          "auth-required",
          `The remote agent needs credentials this tool cannot give. ${said}`.trim(),
          undefined,
          id,
        );
      case TaskState.TASK_STATE_REJECTED:
        throw this.#error("rejected", `The remote agent rejected the task. ${said}`.trim(), undefined, id);
      case TaskState.TASK_STATE_CANCELED:
        throw this.#error("canceled", `The remote task was canceled. ${said}`.trim(), undefined, id);
      default:
        throw this.#error("failed", `The remote task failed. ${said}`.trim(), undefined, id);
    }
  }

  #need(): Client {
    if (this.#client === undefined) throw new Error("the A2A client is not connected");
    return this.#client;
  }

  #error(
    reason: ConstructorParameters<typeof A2AToolError>[0],
    message: string,
    cause?: unknown,
    remoteTaskId?: string,
  ): A2AToolError {
    const options: ConstructorParameters<typeof A2AToolError>[2] = { agent: this.#settings.agentUrl };
    if (cause !== undefined) options.cause = cause;
    if (remoteTaskId !== undefined && remoteTaskId !== "") options.remoteTaskId = remoteTaskId;
    return new A2AToolError(reason, message, options);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
