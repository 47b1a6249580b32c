/**
 * One AG-UI run against a task: `threadId` is the task (created on first use, owned by the
 * caller's principal), a run is what the task does until its next leg ends. Once all of it is
 * checked, in order: the `resume` entries decide the approvals the last run ended with, the tool
 * messages answer the calls the client was to execute, the frontend tools are offered, and the
 * new user messages go in as inputs — a steer while a leg runs (the run then ends at once: the
 * running run shows it applied), a follow-up once the task has finished. A run with no messages
 * at all (a reloaded client) starts with the conversation so far. Then the run streams.
 */
import { EventType } from "@ag-ui/core";
import {
  isSemaError,
  loadTaskOverview,
  loadTaskState,
  offerExternalTools,
  type SentInput,
  sendInput,
  submitToolResult,
  type TaskRecord,
} from "@sema-agent/core";
import { TaskFinishedError, TaskNotFoundError } from "@sema-agent/core/protocol";
import { badRequest, HttpError } from "../http-error.ts";
import type { Caller } from "../ingress/caller.ts";
import { checkTextOrParts, type TextOrParts } from "../ingress/sanitize.ts";
import type { RouteDeps } from "../routes/deps.ts";
import { CLIENT_ID_PATTERN, CLIENT_ID_RULE, ID_PATTERN } from "../schemas/common.ts";
import { createTaskFor } from "../tasks/create-task.ts";
import { decideTaskApproval } from "../tasks/decide-task-approval.ts";
import { ownTask } from "../tasks/own-task.ts";
import { clientToolResults, type NewUserMessage, newUserMessages } from "./client-messages.ts";
import type { AgUiEvent } from "./event-map.ts";
import { externalToolsOf, harnessToolNames } from "./frontend-tools.ts";
import { decisionsOf } from "./interrupts.ts";
import { messagesSnapshot } from "./messages-snapshot.ts";
import type { AgUiRunInputBody } from "./run-input.ts";
import { runResponse } from "./run-stream.ts";

/** Where a new thread records the ids of the messages its objective came from. */
const METADATA_KEY = "ag-ui";

/** What the model is told of a frontend call the client answered with a new message instead. */
const UNANSWERED = "The client returned no result for this call: the person sent a new message instead.";

async function findTask(deps: RouteDeps, taskId: string): Promise<TaskRecord | undefined> {
  try {
    return await deps.store.getTask(taskId);
  } catch (error) {
    if (isSemaError(error, "TaskNotFound")) return undefined;
    throw error;
  }
}

function inputIdOf(message: NewUserMessage, index: number): string {
  const inputId = `ag-ui:${message.id}`;
  if (!ID_PATTERN.test(inputId))
    throw badRequest("the message id must be an id: letters, digits and ._~:-", `body.messages.${index}.id`);
  return inputId;
}

/** An input for the caller's task, on the user lane: a steer, parked for the next leg, or a follow-up. */
async function sendFor(
  deps: RouteDeps,
  caller: Caller,
  taskId: string,
  text: TextOrParts,
  inputId: string,
): Promise<SentInput> {
  const { limits } = deps;
  const options = {
    text,
    source: "user" as const,
    actor: caller.actor,
    inputId,
    content: { maxPartBytes: limits.maxPartBytes, maxInputBytes: limits.maxContentBytes },
    ...(caller.traceContext === undefined ? {} : { traceContext: caller.traceContext }),
  };
  try {
    return await sendInput(deps.store, taskId, options);
  } catch (error) {
    // Completed or failed: the conversation goes on, as a follow-up that wakes the task.
    if (isSemaError(error, "TaskFinished") && error.details.status !== "cancelled")
      return sendInput(deps.store, taskId, { ...options, carrier: "wake" });
    throw error;
  }
}

/** Take the run's input into the task `input.threadId` (created on first use) and stream the run. */
export async function startRun(
  deps: RouteDeps,
  caller: Caller,
  agentName: string,
  input: AgUiRunInputBody,
  signal: AbortSignal,
): Promise<Response> {
  const agent = deps.agents.get(agentName);
  if (agent === undefined)
    throw new HttpError(404, "NotFound", `no agent named ${agentName}`, { details: { agents: deps.agents.names() } });
  const taskId = input.threadId;
  if (!CLIENT_ID_PATTERN.test(taskId)) throw badRequest(`body.threadId: ${CLIENT_ID_RULE}`, "body.threadId");
  const messages = newUserMessages(input.messages);
  const base = { deps, taskId, runId: input.runId, signal, caller };

  const existing = await findTask(deps, taskId);
  if (existing === undefined) {
    const tools = externalToolsOf(input.tools, harnessToolNames([agent]));
    // Nothing to resume on a thread that does not exist: as unknown as another principal's.
    if ((input.resume ?? []).length > 0) throw new TaskNotFoundError(taskId);
    const [head] = messages;
    if (head === undefined) throw badRequest("body.messages: a new thread starts from a user message", "body.messages");
    await createTaskFor(
      deps,
      caller,
      {
        objective: messages.map((m) => m.text).join("\n\n"),
        agent: agentName,
        where: { objective: head.path, agent: "params.name" },
      },
      {
        taskId,
        metadata: { [METADATA_KEY]: { messageIds: messages.map((m) => m.id) } },
        ...(tools.length === 0 ? {} : { externalTools: tools }),
      },
    );
    return runResponse({ ...base, afterSeq: 0, sessionSeq: 0, first: [], follow: true, fromClient: new Set() });
  }

  const record = await ownTask(deps.store, taskId, caller);
  if (record.summary.status === "cancelled") throw new TaskFinishedError(taskId, "cancelled");
  const { store } = deps;
  const first: AgUiEvent[] = [];
  const state = await loadTaskState(store, taskId);
  const overview = await loadTaskOverview(store, record);
  // The thread's own agent runs it, whichever endpoint the client came through: its tools are
  // reserved too.
  const threadAgent = deps.agents.get(state.agent ?? deps.agents.defaultName);
  const tools = externalToolsOf(input.tools, harnessToolNames([agent, threadAgent]));

  // Everything is checked before anything is written: bad input leaves the task as it was.
  const decisions = decisionsOf(input.resume ?? [], overview.pendingApprovals);
  const seen = overview.metadata?.[METADATA_KEY];
  const objectiveIds = new Set(
    typeof seen === "object" && seen !== null && !Array.isArray(seen) && Array.isArray(seen.messageIds)
      ? seen.messageIds
      : [],
  );
  // A client resends its trailing messages until an answer follows them: each goes in once.
  const fresh: Array<{ text: TextOrParts; inputId: string }> = [];
  for (const [offset, message] of messages.entries()) {
    if (objectiveIds.has(message.id)) continue;
    const inputId = inputIdOf(message, input.messages.length - messages.length + offset);
    const text = checkTextOrParts(message.text, "user", deps.limits.maxTextChars, message.path);
    if ((await store.findInput(taskId, inputId)) === undefined) fresh.push({ text, inputId });
  }

  for (const decision of decisions)
    await decideTaskApproval(deps, caller, taskId, decision.callId, decision.body, decision.path);
  // Results before the tools are replaced: a call of a tool the client no longer offers is still answered.
  const results = clientToolResults(input.messages);
  // A tool message answers only a call the model made to a frontend tool: one the harness left for
  // the client, never a call waiting for an approval, a running tool or a sub-agent's verdict.
  const external = new Set((state.externalTools ?? []).map((tool) => tool.name));
  const reserved = harnessToolNames([agent, threadAgent]);
  const waitsForClient = (open: (typeof state.openToolCalls)[number]) =>
    external.has(open.name) &&
    !reserved.has(open.name) &&
    !open.started &&
    !state.approvals.some((approval) => approval.callId === open.callId) &&
    !state.children.some((child) => child.callId === open.callId);
  const fromClient = new Set<string>();
  for (const call of state.openToolCalls.filter(waitsForClient)) {
    const result = results.get(call.callId);
    if (result === undefined && fresh.length === 0) continue;
    await submitToolResult(store, taskId, {
      callId: call.callId,
      status: result === undefined || result.failed ? "error" : "ok",
      output: result?.output ?? UNANSWERED,
      actor: caller.actor,
    });
    if (result !== undefined) fromClient.add(call.callId);
  }
  await offerExternalTools(store, taskId, tools, { actor: caller.actor });
  // A client with nothing (a reloaded page) is given the conversation so far.
  if (input.messages.length === 0) first.push(messagesSnapshot(state));

  let steered = false;
  for (const { text, inputId } of fresh) {
    const sent = await sendFor(deps, caller, taskId, text, inputId);
    if (sent.delivery === "received") {
      steered = true;
      first.push({ type: EventType.CUSTOM, name: "sema.steer_received", value: { inputId: sent.inputId } });
    }
  }
  deps.workers?.notify(taskId);
  const now = await store.getTask(taskId);
  // A steer is not a second run: the run already streaming shows it applied.
  const follow = !steered && (now.summary.runnable || now.summary.status === "running");
  return runResponse({
    ...base,
    afterSeq: record.lastSeq,
    sessionSeq: record.summary.sessionSeq,
    first,
    follow,
    fromClient,
  });
}
