/**
 * What a caller may do to a task, once, for every protocol the server speaks: `/v1` routes and the
 * A2A bindings call these, so ownership, lanes, attribution, sanitizing and approval checks are
 * one code path whatever the wire.
 */
import {
  type ActorAssertion,
  cancel,
  decideApproval,
  type HumanInputSource,
  type JsonValue,
  type SendInputOptions,
  type SentInput,
  type StartTaskInput,
  sendInput,
  startTask,
} from "@sema-agent/core";
import { ForbiddenError } from "@sema-agent/core/protocol";
import { badRequest } from "../http-error.ts";
import type { Caller } from "../ingress/caller.ts";
import { parseDisplayName } from "../ingress/display-name.ts";
import { checkTextOrParts, sanitizeText, type TextOrParts } from "../ingress/sanitize.ts";
import type { RouteDeps } from "../routes/deps.ts";
import { ownTask } from "./own-task.ts";

const REASON_MAX_CHARS = 2000;

/** The model settings a caller may give a new task. */
export type TaskSettingsInput = Pick<
  StartTaskInput,
  "temperature" | "topP" | "maxOutputTokens" | "stopSequences" | "seed" | "toolChoice" | "providerOptions" | "output"
>;

/** A task to start for `caller`: objective, agent name (default agent if absent), extras. */
export interface StartAs {
  objective: TextOrParts;
  agent?: string | undefined;
  metadata?: Record<string, JsonValue> | undefined;
  /** The task's model settings (`CreateTaskRequest.settings`). */
  settings?: TaskSettingsInput | undefined;
  /** Where the objective came from in the request, for error messages. */
  path: string;
}

/** Start a task as `caller` (checked objective, a known agent) and tell the workers. */
export async function startTaskAs(deps: RouteDeps, caller: Caller, input: StartAs): Promise<string> {
  const objective = checkTextOrParts(input.objective, "user", deps.limits.maxTextChars, input.path);
  const name = input.agent ?? deps.agents.defaultName;
  const agent = deps.agents.get(name);
  if (agent === undefined)
    throw badRequest(`body.agent: no agent named ${name}`, "body.agent", { agents: deps.agents.names() });
  const taskId = await startTask(deps.store, {
    objective,
    principal: caller.principal,
    actor: caller.actor,
    agent: name,
    model: agent.model.id,
    content: { maxPartBytes: deps.limits.maxPartBytes, maxInputBytes: deps.limits.maxContentBytes },
    ...(input.metadata === undefined ? {} : { metadata: input.metadata }),
    ...input.settings,
  });
  deps.workers?.notify(taskId);
  return taskId;
}

/** The lane and the actor an input is recorded with, from the token and the request. */
export function laneOf(
  caller: Caller,
  lane: "user" | "supervisor" | "external",
  from: string | undefined,
): { source: HumanInputSource; actor: ActorAssertion } {
  if (lane !== "external" && from !== undefined)
    throw badRequest("body.from is only for the external lane (use X-Sema-Speaker to relay a person)", "body.from");
  if (lane === "supervisor" && !caller.roles.has("supervisor"))
    throw new ForbiddenError("the supervisor lane needs a token with the supervisor role", { lane });
  if (lane !== "external") return { source: lane, actor: caller.actor };
  if (from === undefined) throw badRequest("body.from is required on the external lane", "body.from");
  // The relayed sender is a claim of the relaying caller, never a verified identity.
  return {
    source: "external",
    actor: { id: parseDisplayName(from, "body.from"), verified: false, issuer: caller.actor.id },
  };
}

/** An input for `sendInputAs`: the text and the optional knobs of `POST /v1/tasks/{id}/inputs`. */
export interface InputAs {
  text: TextOrParts;
  lane?: "user" | "supervisor" | "external" | undefined;
  from?: string | undefined;
  path: string;
  carrier?: SendInputOptions["carrier"] | undefined;
  policy?: SendInputOptions["policy"] | undefined;
  legId?: string | undefined;
  inputId?: string | undefined;
}

/** Record an input to the caller's task on its lane, one writer per task in this process. */
export async function sendInputAs(deps: RouteDeps, caller: Caller, taskId: string, input: InputAs): Promise<SentInput> {
  const { source, actor } = laneOf(caller, input.lane ?? "user", input.from);
  const text = checkTextOrParts(input.text, source, deps.limits.maxTextChars, input.path);
  await ownTask(deps.store, taskId, caller);
  const sent = await deps.inputs.run(taskId, () =>
    sendInput(deps.store, taskId, {
      text,
      source,
      actor,
      content: { maxPartBytes: deps.limits.maxPartBytes, maxInputBytes: deps.limits.maxContentBytes },
      ...(input.carrier === undefined ? {} : { carrier: input.carrier }),
      ...(input.policy === undefined ? {} : { policy: input.policy }),
      ...(input.legId === undefined ? {} : { legId: input.legId }),
      ...(input.inputId === undefined ? {} : { inputId: input.inputId }),
    }),
  );
  if (sent.delivery === "parked") deps.workers?.notify(taskId);
  return sent;
}

/** A decision for `decideAs`, as `POST /v1/tasks/{id}/approvals/{callId}` takes it. */
export interface DecisionAs {
  callId: string;
  digest: string;
  decision: "approve" | "deny";
  reason?: string | undefined;
  scope?: "call" | "tool-for-task" | undefined;
  /** Where the reason came from in the request, for error messages. */
  reasonPath: string;
}

/** Decide a parked approval as `caller`: digest, approver role and principal are core's checks. */
export async function decideAs(deps: RouteDeps, caller: Caller, taskId: string, input: DecisionAs) {
  const reason =
    input.reason === undefined ? undefined : sanitizeText(input.reason, "user", REASON_MAX_CHARS, input.reasonPath);
  await ownTask(deps.store, taskId, caller);
  const decided = await decideApproval(deps.store, taskId, {
    callId: input.callId,
    digest: input.digest,
    decision: input.decision,
    actor: caller.actor,
    principal: caller.principal,
    ...(reason === undefined ? {} : { reason }),
    ...(input.scope === undefined ? {} : { scope: input.scope }),
    canApprove: deps.canApprove(caller),
  });
  deps.workers?.notify(taskId);
  return decided;
}

/** Cancel the caller's task (core refuses one that has ended: `TaskFinished`). */
export async function cancelAs(
  deps: RouteDeps,
  caller: Caller,
  taskId: string,
  input: { reason?: string | undefined; reasonPath: string },
): Promise<void> {
  await ownTask(deps.store, taskId, caller);
  const reason =
    input.reason === undefined ? undefined : sanitizeText(input.reason, "user", REASON_MAX_CHARS, input.reasonPath);
  await cancel(deps.store, taskId, { actor: caller.actor, ...(reason === undefined ? {} : { reason }) });
}
