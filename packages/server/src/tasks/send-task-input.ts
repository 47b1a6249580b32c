/**
 * Human text into a caller's task. The lane is an authority, so it is checked against the token
 * here: `supervisor` needs the supervisor role, `external` names its sender and is fenced as
 * untrusted, and the default is the caller's own `user` lane.
 */
import { type ActorAssertion, type HumanInputSource, type SentInput, sendInput } from "@sema-agent/core";
import { ForbiddenError, isSemaError } from "@sema-agent/core/protocol";
import type { z } from "zod";
import { badRequest } from "../http-error.ts";
import type { Caller } from "../ingress/caller.ts";
import { parseDisplayName } from "../ingress/display-name.ts";
import { checkTextOrParts } from "../ingress/sanitize.ts";
import type { SendInputRequest } from "../schemas/actions.ts";
import { ownTask } from "./own-task.ts";
import type { TaskDeps } from "./task-deps.ts";

/** The lane and the actor an input is recorded with, from the token and the request. */
function laneOf(
  caller: Caller,
  lane: "user" | "supervisor" | "external",
  from: string | undefined,
  path: string,
): { source: HumanInputSource; actor: ActorAssertion } {
  if (lane !== "external" && from !== undefined)
    throw badRequest(
      `${path}.from is only for the external lane (use X-Sema-Speaker to relay a person)`,
      `${path}.from`,
    );
  if (lane === "supervisor" && !caller.roles.has("supervisor"))
    throw new ForbiddenError("the supervisor lane needs a token with the supervisor role", { lane });
  if (lane !== "external") return { source: lane, actor: caller.actor };
  if (from === undefined) throw badRequest(`${path}.from is required on the external lane`, `${path}.from`);
  // The relayed sender is a claim of the relaying caller, never a verified identity.
  return {
    source: "external",
    actor: { id: parseDisplayName(from, `${path}.from`), verified: false, issuer: caller.actor.id },
  };
}

/** Record `body` as input to the caller's task `taskId`; `path` prefixes the error paths. */
export async function sendTaskInput(
  deps: TaskDeps,
  caller: Caller,
  taskId: string,
  body: z.output<typeof SendInputRequest>,
  path = "body",
): Promise<SentInput> {
  const { store, limits } = deps;
  const { source, actor } = laneOf(caller, body.lane ?? "user", body.from, path);
  const text = checkTextOrParts(body.text, source, limits.maxTextChars, `${path}.text`);
  await ownTask(store, taskId, caller);
  const send = (carrier: string | undefined) =>
    deps.inputs.run(taskId, () =>
      sendInput(store, taskId, {
        text,
        source,
        actor,
        content: { maxPartBytes: limits.maxPartBytes, maxInputBytes: limits.maxContentBytes },
        ...(carrier === undefined ? {} : { carrier }),
        ...(body.policy === undefined ? {} : { policy: body.policy }),
        ...(body.legId === undefined ? {} : { legId: body.legId }),
        ...(body.inputId === undefined ? {} : { inputId: body.inputId }),
        ...(caller.traceContext === undefined ? {} : { traceContext: caller.traceContext }),
      }),
    );
  let sent: SentInput;
  try {
    sent = await send(body.carrier);
  } catch (error) {
    // No carrier asked for, and the task has completed or failed: the conversation goes on, as a
    // follow-up that wakes it (what the library's `agent.send` does). A cancelled task refuses;
    // a steer or a nextTurn asked for by name refuses too (there is no turn to reach).
    if (body.carrier !== undefined || !isSemaError(error, "TaskFinished") || error.details.status === "cancelled")
      throw error;
    sent = await send("wake");
  }
  if (sent.delivery === "parked") deps.workers?.notify(taskId);
  return sent;
}
