/**
 * The AI SDK's chat protocol over a task: `POST …/chat` (what `useChat`'s `DefaultChatTransport`
 * sends), `GET …/chat/{id}/stream` (its resume) and `GET …/chat/{id}/messages` (the transcript
 * as `UIMessage[]`), under `/v1/agents/{agent}` or `/v1` for the default agent. The chat id is
 * the task id; every answer is read from the task's log, so a stream resumes across restarts.
 */
import { isSemaError, type Store, type TaskRecord } from "@sema-agent/core";
import { TaskNotFoundError } from "@sema-agent/core/protocol";
import { z } from "zod";
import { sseResponse } from "../events/sse-response.ts";
import { badRequest, HttpError } from "../http-error.ts";
import type { Caller } from "../ingress/caller.ts";
import { sanitizeText } from "../ingress/sanitize.ts";
import { type AnyRouteSpec, route } from "../route.ts";
import type { RouteDeps } from "../routes/deps.ts";
import { taskStreamOptions } from "../routes/stream-options.ts";
import { ID_PATTERN, idSchema } from "../schemas/common.ts";
import { named } from "../schemas/registry.ts";
import { createTaskFor } from "../tasks/create-task.ts";
import { decideTaskApproval } from "../tasks/decide-task-approval.ts";
import { ownTask } from "../tasks/own-task.ts";
import { sendTaskInput } from "../tasks/send-task-input.ts";
import { ChatHandoffs } from "./chat-handoffs.ts";
import {
  ApprovalResponsePart,
  type ChatMessageInput,
  ChatRequest,
  type ChatRequestBody,
  userText,
} from "./chat-request.ts";
import { CHAT_CARRIER, lastTurnStart, opensTurn, turnMessageId } from "./chat-turns.ts";
import { chatTranscript } from "./transcript.ts";
import { TurnEncoder } from "./turn-encoder.ts";
import { settledTurn, UI_STREAM_HEADERS, uiStreamFramer } from "./ui-stream-framer.ts";

const AgentParams = z.strictObject({ agent: idSchema });
const AgentChatParams = z.strictObject({ agent: idSchema, chatId: idSchema });
const ChatParams = z.strictObject({ chatId: idSchema });

const UiMessages = named(
  "UIMessages",
  z.array(z.looseObject({ id: z.string(), role: z.enum(["user", "assistant"]), parts: z.array(z.looseObject({})) })),
  "The chat's transcript in the AI SDK's `UIMessage` shape (`useChat`'s `messages`).",
);

/** Parks a host resumes on its own: the turn is still under way. */
const RUNNING_PARKS: ReadonlySet<string> = new Set(["shutdown", "crash", "model"]);

/** Whether the task's turn is under way (a leg runs, or will without anyone asking). */
function runs(record: TaskRecord): boolean {
  const { status, parkedReason } = record.summary;
  if (status === "running" || status === "created") return true;
  return status === "parked" && parkedReason !== undefined && RUNNING_PARKS.has(parkedReason);
}

/** Where a stream starts and which message it builds. */
interface StreamPlan {
  afterSeq: number;
  messageId: string;
  endsAfter: number;
}

export function chatRoutes(deps: RouteDeps): AnyRouteSpec[] {
  const { store, agents, limits } = deps;
  const handoffs = new ChatHandoffs();

  const agentNamed = (name: string | undefined) => {
    const agentName = name ?? agents.defaultName;
    const agent = agents.get(agentName);
    if (agent === undefined) throw new HttpError(404, "NotFound", `no agent named ${agentName}`);
    return { agentName, agent };
  };

  /** The caller's chat `chatId` with `agentName`: another principal's, or another agent's, is unknown. */
  const ownChat = async (chatId: string, caller: Caller, agentName: string): Promise<TaskRecord> => {
    const record = await ownTask(store, chatId, caller);
    const [created] = await store.read(chatId, { limit: 1 });
    const agent = created?.type === "task_created" ? (created.agent ?? agents.defaultName) : undefined;
    if (agent !== agentName) throw new TaskNotFoundError(chatId);
    return record;
  };

  const stream = (env: unknown, caller: Caller, record: TaskRecord, plan: StreamPlan): Response => {
    const turn = new TurnEncoder({
      messageId: plan.messageId,
      endsAfter: plan.endsAfter,
      handedOver: (inputId) => handoffs.has(record.taskId, inputId),
    });
    const options = { ...taskStreamOptions(deps, caller, record, plan.afterSeq), framer: uiStreamFramer(turn) };
    return sseResponse(env, options, UI_STREAM_HEADERS);
  };

  /** The turn under way, from where it opened (a resume, a steer's request, a retried request). */
  const replay = async (record: TaskRecord): Promise<StreamPlan> => {
    const start = lastTurnStart(await store.read(record.taskId));
    return { afterSeq: start, messageId: turnMessageId(start), endsAfter: record.lastSeq };
  };

  const chat = async (
    agentParam: string | undefined,
    body: ChatRequestBody,
    caller: Caller,
    env: unknown,
    retried = false,
  ): Promise<Response> => {
    const { agentName } = agentNamed(agentParam);
    if (body.trigger === "regenerate-message")
      throw badRequest(
        "body.trigger: regenerate-message is not supported: a chat's log is append-only; send a new message",
        "body.trigger",
      );
    const index = body.messages.length - 1;
    const last = body.messages[index] as ChatMessageInput;
    const existing = await ownChat(body.id, caller, agentName).catch(async (error: unknown) => {
      // Unknown: this request creates it. Another principal's (or agent's) is a 404 like any unknown id.
      // By the brand, not the class: a store built on another installed copy of core throws its own.
      if (isSemaError(error, "TaskNotFound") && !(await exists(store, body.id))) return undefined;
      throw error;
    });
    if (existing === undefined) {
      const path = `body.messages.${index}`;
      const text = personText(last, path, limits.maxTextChars);
      try {
        await createTaskFor(
          deps,
          caller,
          { objective: text, agent: agentName, where: { objective: `${path}.parts`, agent: "params.agent" } },
          {
            taskId: body.id,
            // Recorded under the message's own id: a retried first request finds it and records nothing.
            ...(ID_PATTERN.test(last.id) ? { objectiveInputId: last.id } : {}),
            ...(body.metadata === undefined ? {} : { metadata: body.metadata }),
          },
        );
      } catch (error) {
        // Created by a request running at the same time (the same first request, retried): answer
        // as a request that came after it.
        if (!retried && isSemaError(error, "TaskExists")) return chat(agentParam, body, caller, env, true);
        throw error;
      }
      const events = await store.read(body.id, { limit: 2 });
      const opener = events.find(opensTurn)?.seq ?? 0;
      const record = await store.getTask(body.id);
      return stream(env, caller, record, { afterSeq: opener, messageId: turnMessageId(opener), endsAfter: opener });
    }
    // (A transport's `body` extras come with every request: `metadata` counts only on the first.)
    // Approval responses ride on the assistant message they answer, wherever it is in the list
    // (a steer typed during the turn comes after it); only calls still open are decided.
    const before = existing.lastSeq;
    let decided = 0;
    for (const response of approvalResponses(body.messages)) {
      if (!existing.summary.openApprovals.includes(response.callId)) continue;
      const { callId, path, ...decision } = response;
      await decideTaskApproval(deps, caller, body.id, callId, decision, path);
      decided++;
    }
    const path = `body.messages.${index}`;
    const fresh = last.role === "user" && (await store.findInput(body.id, last.id)) === undefined;
    if (last.role === "user" && !fresh && body.messageId === last.id)
      throw badRequest(
        "body.messageId: editing a message already sent is not supported: a chat's log is append-only",
        "body.messageId",
      );
    if (fresh) {
      if (!ID_PATTERN.test(last.id))
        throw badRequest(`${path}.id: must be an id: letters, digits and ._~:-`, `${path}.id`);
      const text = personText(last, path, limits.maxTextChars);
      handoffs.mark(body.id, last.id);
      const sent = await sendTaskInput(deps, caller, body.id, { text, carrier: CHAT_CARRIER, inputId: last.id }, path);
      const recorded = await store.findInput(body.id, sent.inputId);
      const record = await store.getTask(body.id);
      if (recorded !== undefined && opensTurn(recorded))
        return stream(env, caller, record, {
          afterSeq: recorded.seq,
          messageId: turnMessageId(recorded.seq),
          endsAfter: recorded.seq,
        });
      // A steer: this response streams the open turn, the earlier request's stream ends at it.
      return stream(env, caller, record, await replay(record));
    }
    if (last.role === "system")
      throw badRequest(`${path}.role: a system message is not a chat message`, `${path}.role`);
    const record = await store.getTask(body.id);
    if (decided > 0) {
      // The turn goes on from the decisions, in the assistant message the client holds.
      const start = lastTurnStart(await store.read(body.id));
      return stream(env, caller, record, { afterSeq: before, messageId: turnMessageId(start), endsAfter: before });
    }
    // Nothing new: the turn under way, or (nothing runs) the client's message as it stands.
    if (!runs(record)) return settledTurn(turnMessageId(lastTurnStart(await store.read(body.id))));
    return stream(env, caller, record, await replay(record));
  };

  const resume = async (agentParam: string | undefined, chatId: string, caller: Caller, env: unknown) => {
    const { agentName } = agentNamed(agentParam);
    const record = await ownChat(chatId, caller, agentName).catch((error: unknown) => {
      // Nothing to resume: for an unknown chat (or another principal's) as for a finished turn.
      if (isSemaError(error, "TaskNotFound")) return undefined;
      throw error;
    });
    if (record === undefined || !runs(record)) return new Response(null, { status: 204 });
    return stream(env, caller, record, await replay(record));
  };

  const messages = async (agentParam: string | undefined, chatId: string, caller: Caller) => {
    const { agentName } = agentNamed(agentParam);
    await ownChat(chatId, caller, agentName);
    return Response.json(chatTranscript(await store.read(chatId)));
  };

  const chatResponses = {
    200: {
      description:
        "The UI message stream (`x-vercel-ai-ui-message-stream: v1`): one assistant message's parts as `data:` lines, `data: [DONE]` last.",
      contentType: "text/event-stream",
    },
  };
  const resumeResponses = {
    ...chatResponses,
    204: { description: "Nothing runs in this chat (or there is no such chat): nothing to resume." },
  };
  const messagesResponses = { 200: { description: "The transcript.", schema: UiMessages } };
  return [
    route({
      method: "post",
      path: "/v1/agents/:agent/chat",
      operationId: "chatWithAgent",
      summary: "AI SDK chat: a message starts, steers or continues the chat's task; approval responses decide calls",
      tag: "chat",
      params: AgentParams,
      body: ChatRequest,
      contentBody: true,
      responses: chatResponses,
      errors: [400, 401, 403, 404, 409, 413, 415, 429],
      handler: ({ params, body, caller, context }) => chat(params.agent, body, caller, context.env),
    }),
    route({
      method: "post",
      path: "/v1/chat",
      operationId: "chat",
      summary: "AI SDK chat with the default agent",
      tag: "chat",
      body: ChatRequest,
      contentBody: true,
      responses: chatResponses,
      errors: [400, 401, 403, 404, 409, 413, 415, 429],
      handler: ({ body, caller, context }) => chat(undefined, body, caller, context.env),
    }),
    route({
      method: "get",
      path: "/v1/agents/:agent/chat/:chatId/stream",
      operationId: "resumeAgentChat",
      summary: "Resume the chat's turn under way: re-sent from the log, then live (`useChat({ resume: true })`)",
      tag: "chat",
      params: AgentChatParams,
      responses: resumeResponses,
      errors: [400, 401, 404, 429],
      handler: ({ params, caller, context }) => resume(params.agent, params.chatId, caller, context.env),
    }),
    route({
      method: "get",
      path: "/v1/chat/:chatId/stream",
      operationId: "resumeChat",
      summary: "Resume the default agent's chat turn under way",
      tag: "chat",
      params: ChatParams,
      responses: resumeResponses,
      errors: [400, 401, 404, 429],
      handler: ({ params, caller, context }) => resume(undefined, params.chatId, caller, context.env),
    }),
    route({
      method: "get",
      path: "/v1/agents/:agent/chat/:chatId/messages",
      operationId: "agentChatMessages",
      summary: "The chat's transcript as `UIMessage[]`",
      tag: "chat",
      params: AgentChatParams,
      responses: messagesResponses,
      errors: [400, 401, 404, 429],
      handler: ({ params, caller }) => messages(params.agent, params.chatId, caller),
    }),
    route({
      method: "get",
      path: "/v1/chat/:chatId/messages",
      operationId: "chatMessages",
      summary: "The default agent's chat transcript as `UIMessage[]`",
      tag: "chat",
      params: ChatParams,
      responses: messagesResponses,
      errors: [400, 401, 404, 429],
      handler: ({ params, caller }) => messages(undefined, params.chatId, caller),
    }),
  ];
}

/** Whether a task with this id exists at all (of any principal). */
async function exists(store: Store, taskId: string): Promise<boolean> {
  try {
    await store.getTask(taskId);
    return true;
  } catch (error) {
    if (isSemaError(error, "TaskNotFound")) return false;
    throw error;
  }
}

/** A person's message: its text, sanitized and capped; anything but text is refused by name. */
function personText(message: ChatMessageInput, path: string, maxChars: number): string {
  if (message.role !== "user") throw badRequest(`${path}.role: a chat starts with a person's message`, `${path}.role`);
  const read = userText(message, path);
  if ("unsupported" in read) throw badRequest(`${read.unsupported} is not supported (text only)`, path);
  const text = sanitizeText(read.text, "user", maxChars, `${path}.parts`);
  if (text.trim() === "") throw badRequest(`${path}.parts: the message has no text`, `${path}.parts`);
  return text;
}

/** The approval responses of the client's assistant messages, with the digest each carries. */
function approvalResponses(messages: readonly ChatMessageInput[]) {
  /** Each decision, with the path of the approval it was read from (for errors naming its reason). */
  const out: { callId: string; path: string; digest: string; decision: "approve" | "deny"; reason?: string }[] = [];
  for (const [index, message] of messages.entries()) {
    if (message.role !== "assistant") continue;
    for (const [at, part] of message.parts.entries()) {
      const parsed = ApprovalResponsePart.safeParse(part);
      if (!parsed.success) continue;
      const { approval } = parsed.data;
      const path = `body.messages.${index}.parts.${at}.approval`;
      if (approval.signature === undefined)
        throw badRequest(`${path}.signature: the approval response carries the digest it was asked with`, path);
      out.push({
        callId: approval.id,
        path,
        digest: approval.signature,
        decision: approval.approved ? "approve" : "deny",
        ...(approval.reason === undefined ? {} : { reason: approval.reason }),
      });
    }
  }
  return out;
}
