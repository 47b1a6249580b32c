/**
 * The A2A request handler over Sema's log. It implements the SDK's `A2ARequestHandler`, so the
 * SDK's JSON-RPC transport handler (and the REST binding here) call it; its state is the task log
 * itself, not the SDK's `TaskStore` and in-memory event bus: a stream is `store.watch` read
 * through `TaskProjection`, so resubscribe replays from the log and survives a restart, and every
 * action goes through the same task actions as `/v1` and MCP (`tasks/`).
 */
import { randomUUID } from "node:crypto";
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from "@a2a-js/sdk";
import { TaskState } from "@a2a-js/sdk";
import {
  ExtendedAgentCardNotConfiguredError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "@a2a-js/sdk/errors";
import type { A2ARequestHandler, ServerCallContext } from "@a2a-js/sdk/server";
import type { Caller } from "../ingress/caller.ts";
import { watchToken } from "../ingress/token-watch.ts";
import type { RouteDeps } from "../routes/deps.ts";
import { cancelTaskFor } from "../tasks/cancel-task.ts";
import { createTaskFor } from "../tasks/create-task.ts";
import { decideTaskApproval } from "../tasks/decide-task-approval.ts";
import { ownTask } from "../tasks/own-task.ts";
import { sendTaskInput } from "../tasks/send-task-input.ts";
import { callerOf, signalOf } from "./caller-context.ts";
import { cancelError, toA2AError } from "./errors.ts";
import { readMessage } from "./message-input.ts";
import { checkPushAuthentication, checkPushConfigCount } from "./push-config-check.ts";
import type { PushConfig } from "./push-config-store.ts";
import type { PushDispatcher } from "./push-dispatcher.ts";
import { checkPushUrl } from "./push-url.ts";
import { endsStream, isTerminalState, project, TaskProjection } from "./task-projection.ts";
import { META } from "./wire.ts";

const MAX_PAGE = 100;
const ID_MAX = 200;

/** Every method's failures become A2A errors (a bug: a bare internal error). */
async function mapped<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toA2AError(error);
  }
}

function checkId(value: string, path: string): string {
  if (value.trim() === "" || value.length > ID_MAX) throw new RequestMalformedError(`${path} must be a non-empty id`);
  return value;
}

export class SemaA2AHandler implements A2ARequestHandler {
  readonly #deps: RouteDeps;
  readonly #agent: string;
  readonly #push: PushDispatcher | undefined;

  constructor(deps: RouteDeps, agent: string, push: PushDispatcher | undefined) {
    this.#deps = deps;
    this.#agent = agent;
    this.#push = push;
  }

  // The bindings serve the public card themselves (it needs the request's origin).
  async getAgentCard(): Promise<AgentCard> {
    throw new UnsupportedOperationError("the agent card is served at /.well-known/agent-card.json");
  }

  async getAuthenticatedExtendedAgentCard(_params: GetExtendedAgentCardRequest): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError("this agent has no extended card: the public card is complete");
  }

  /** Read the caller's task whole, as a projection (TaskNotFound for another principal's). */
  async #load(caller: Caller, taskId: string): Promise<TaskProjection> {
    await ownTask(this.#deps.store, checkId(taskId, "params.id"), caller);
    return project(taskId, await this.#deps.store.read(taskId));
  }

  /**
   * Do what the message asks: a new task (no `taskId`), or, on the caller's task, its approval
   * decisions then its text as a steer on the user lane. Returns the task and, for an existing
   * task, its projection after the action.
   */
  async #act(caller: Caller, params: SendMessageRequest): Promise<{ taskId: string; after?: TaskProjection }> {
    const message = params.message as Message;
    const input = readMessage(params.message);
    if (message.taskId === "") {
      if (input.decisions.length > 0)
        throw new RequestMalformedError("an approval decision must name its task (params.message.taskId)");
      const contextId =
        message.contextId === "" ? randomUUID() : checkId(message.contextId, "params.message.contextId");
      const taskId = await createTaskFor(
        this.#deps,
        caller,
        {
          objective: input.attachments ? input.parts : input.text,
          agent: this.#agent,
          where: { objective: "params.message.parts", agent: "params.agent" },
        },
        { metadata: { [META.contextId]: contextId, [META.messageId]: message.messageId.slice(0, ID_MAX) } },
      );
      return { taskId };
    }
    const taskId = message.taskId;
    const before = await this.#load(caller, taskId);
    if (message.contextId !== "" && message.contextId !== before.contextId)
      throw new RequestMalformedError("params.message.contextId is not the task's context");
    if (isTerminalState(before.state))
      throw new UnsupportedOperationError(
        "the task has ended: send the follow-up without a taskId (same contextId) to start a new task in the context",
      );
    for (const { callId, ...decision } of input.decisions)
      await decideTaskApproval(this.#deps, caller, taskId, callId, decision, "params.message.parts.data");
    if (input.text.trim() !== "" || input.attachments)
      await sendTaskInput(
        this.#deps,
        caller,
        taskId,
        { text: input.attachments ? input.parts : input.text },
        "params.message",
      );
    else if (input.decisions.length === 0) throw new RequestMalformedError("params.message has no text");
    return { taskId, after: await this.#load(caller, taskId) };
  }

  /**
   * A message's push config is checked before the message acts, so a refused webhook creates no
   * task and sends no input (it is checked again when it is stored).
   */
  async #precheckPush(params: SendMessageRequest): Promise<void> {
    const config = params.configuration?.taskPushNotificationConfig;
    if (config === undefined) return;
    await checkPushUrl(config.url, this.#pushOn().urls);
    if (config.authentication !== undefined && config.authentication.scheme !== "")
      checkPushAuthentication(config.authentication);
  }

  async #registerFromParams(caller: Caller, params: SendMessageRequest, taskId: string, fromSeq: number) {
    const config = params.configuration?.taskPushNotificationConfig;
    if (config === undefined) return;
    await this.#register(caller, { ...config, taskId }, fromSeq);
  }

  /**
   * The task's stream: events after `afterSeq` through the projection, until it ends (from seq
   * `endFrom` on), the client goes away, or the caller's token is revoked (checked every
   * `sseRecheckMs`, and at once for a revocation made in this process, as `/v1` event streams do).
   */
  async *#stream(
    projection: TaskProjection,
    afterSeq: number,
    endFrom: number,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse> {
    const controller = new AbortController();
    const stop = () => controller.abort();
    const signal = signalOf(context);
    signal?.addEventListener("abort", stop, { once: true });
    const unwatch = watchToken(callerOf(context), this.#deps.limits.sseRecheckMs, stop);
    try {
      for await (const event of this.#deps.store.watch(projection.taskId, { afterSeq, signal: controller.signal })) {
        yield* projection.apply(event);
        if (event.seq >= endFrom && endsStream(projection.state)) return;
      }
    } finally {
      unwatch();
      signal?.removeEventListener("abort", stop);
      controller.abort();
    }
  }

  sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    return mapped(async () => {
      const caller = callerOf(context);
      await this.#precheckPush(params);
      const { taskId, after } = await this.#act(caller, params);
      await this.#registerFromParams(caller, params, taskId, after?.seq ?? 0);
      const historyLength = params.configuration?.historyLength;
      if (params.configuration?.returnImmediately === true)
        return (after ?? (await this.#load(caller, taskId))).snapshot(historyLength);
      // Blocking (A2A's default): wait for the next terminal or interrupted state.
      const projection = after ?? new TaskProjection(taskId);
      const from = after?.seq ?? 0;
      for await (const _ of this.#stream(projection, from, from + 1, context)) void _;
      return projection.snapshot(historyLength);
    });
  }

  async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    const caller = callerOf(context);
    await mapped(() => this.#precheckPush(params));
    const { taskId, after } = await mapped(() => this.#act(caller, params));
    await mapped(() => this.#registerFromParams(caller, params, taskId, after?.seq ?? 0));
    if (after === undefined) {
      yield* this.#stream(new TaskProjection(taskId), 0, 1, context);
      return;
    }
    // A message to a running task: the task as it stands, then what follows the action.
    yield { payload: { $case: "task", value: after.snapshot(params.configuration?.historyLength) } };
    yield* this.#stream(after, after.seq, after.seq + 1, context);
  }

  getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    return mapped(async () => {
      if (params.historyLength !== undefined && params.historyLength < 0)
        throw new RequestMalformedError("params.historyLength must not be negative");
      return (await this.#load(callerOf(context), params.id)).snapshot(params.historyLength);
    });
  }

  listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return mapped(async () => {
      const caller = callerOf(context);
      const pageSize = params.pageSize ?? 50;
      if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE)
        throw new RequestMalformedError(`params.pageSize must be from 1 to ${MAX_PAGE}`);
      const page = await this.#deps.store.listTasks({
        principal: caller.principal,
        limit: pageSize,
        ...(params.pageToken === "" ? {} : { cursor: params.pageToken }),
      });
      const tasks: Task[] = [];
      for (const record of page.tasks) {
        const projection = project(record.taskId, await this.#deps.store.read(record.taskId));
        if (params.contextId !== "" && projection.contextId !== params.contextId) continue;
        if (params.status !== TaskState.TASK_STATE_UNSPECIFIED && projection.state !== params.status) continue;
        tasks.push(projection.snapshot(params.historyLength ?? 0, params.includeArtifacts === true));
      }
      return { tasks, nextPageToken: page.nextCursor ?? "", pageSize, totalSize: tasks.length };
    });
  }

  async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    const caller = callerOf(context);
    await mapped(() => ownTask(this.#deps.store, checkId(params.id, "params.id"), caller));
    try {
      await cancelTaskFor(this.#deps.store, caller, params.id, undefined);
    } catch (error) {
      throw cancelError(error);
    }
    return mapped(async () => (await this.#load(caller, params.id)).snapshot());
  }

  #pushOn(): PushDispatcher {
    if (this.#push === undefined) throw new PushNotificationNotSupportedError("push notifications are not configured");
    return this.#push;
  }

  async #register(caller: Caller, params: TaskPushNotificationConfig, fromSeq: number): Promise<PushConfig> {
    const push = this.#pushOn();
    const record = await ownTask(this.#deps.store, checkId(params.taskId, "params.taskId"), caller);
    const { url } = await checkPushUrl(params.url, push.urls);
    if (params.token.length > 1000) throw new RequestMalformedError("params.token is longer than 1000 characters");
    const id = params.id === "" ? randomUUID() : checkId(params.id, "params.id");
    const existing = await push.configs.list(record.taskId);
    // Replacing one of the task's configs adds none.
    if (!existing.some((config) => config.id === id)) checkPushConfigCount(existing.length);
    const config: PushConfig = {
      taskId: record.taskId,
      id,
      principal: caller.principal,
      url: url.href,
      token: params.token,
      // Deliveries stop once this token is revoked.
      tokenId: caller.tokenId,
      createdAt: new Date(this.#deps.now()).toISOString(),
      // Owed from here on: a config given with a new task's first message sees every state.
      deliveredSeq: fromSeq,
    };
    if (params.authentication !== undefined && params.authentication.scheme !== "") {
      const authentication = { scheme: params.authentication.scheme, credentials: params.authentication.credentials };
      checkPushAuthentication(authentication);
      config.authentication = authentication;
    }
    await push.configs.put(config);
    push.watch(config.taskId);
    return config;
  }

  createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return mapped(async () => {
      const caller = callerOf(context);
      const record = await ownTask(this.#deps.store, checkId(params.taskId, "params.taskId"), caller);
      return wireConfig(await this.#register(caller, params, record.lastSeq));
    });
  }

  getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return mapped(async () => {
      const push = this.#pushOn();
      await ownTask(this.#deps.store, checkId(params.taskId, "params.taskId"), callerOf(context));
      const config = await push.configs.get(params.taskId, params.id);
      if (config === undefined) throw new TaskNotFoundError("push notification config not found");
      return wireConfig(config);
    });
  }

  listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return mapped(async () => {
      const push = this.#pushOn();
      await ownTask(this.#deps.store, checkId(params.taskId, "params.taskId"), callerOf(context));
      return { configs: (await push.configs.list(params.taskId)).map(wireConfig), nextPageToken: "" };
    });
  }

  deleteTaskPushNotificationConfig(
    params: DeleteTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<void> {
    return mapped(async () => {
      const push = this.#pushOn();
      await ownTask(this.#deps.store, checkId(params.taskId, "params.taskId"), callerOf(context));
      if (!(await push.configs.delete(params.taskId, params.id)))
        throw new TaskNotFoundError("push notification config not found");
    });
  }

  async *resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    const caller = callerOf(context);
    const record = await mapped(() => ownTask(this.#deps.store, checkId(params.id, "params.id"), caller));
    const current = await mapped(() => this.#load(caller, params.id));
    if (isTerminalState(current.state)) throw new UnsupportedOperationError("the task has ended: read it with GetTask");
    // The whole log, then live: what a stream that never broke would have sent, once each.
    yield* this.#stream(new TaskProjection(params.id), 0, record.lastSeq, context);
  }
}

function wireConfig(config: PushConfig): TaskPushNotificationConfig {
  return {
    tenant: "",
    id: config.id,
    taskId: config.taskId,
    url: config.url,
    token: config.token,
    authentication: config.authentication,
  };
}
