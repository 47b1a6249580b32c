/**
 * Forking a caller's task (`POST /v1/tasks/{taskId}/fork`): core's `forkTask`, with what a
 * caller sends held to the rules of the rest of the API. The fork is the caller's principal's
 * and runs as the source's served agent, on that agent's model (a `model` edit naming any other
 * is a 400); its settings are checked as at creation (provider options only where the agent's
 * `callerProviderOptions` allow); a replaced input keeps its lane, so the caller must be allowed
 * on it (the supervisor role for the supervisor lane; no token speaks on the operator lane), and
 * its text is sanitized for that lane; a replaced tool result is sanitized as a user's text. A
 * fork counts like a creation against the principal's `concurrentTasks` quota.
 */
import type { HumanInputSource } from "@sema-agent/core";
import { ConfigError, ForbiddenError, QuotaExceededError, refusedProviderOption } from "@sema-agent/core/protocol";
import { type ForkEdits, type ForkResult, forkTask } from "@sema-agent/core/time-travel";
import type { z } from "zod";
import { badRequest } from "../http-error.ts";
import type { Caller } from "../ingress/caller.ts";
import { sanitizeText } from "../ingress/sanitize.ts";
import type { ForkRequest } from "../schemas/time-travel.ts";
import { ownTask } from "./own-task.ts";
import { rootAgent, unknownAgent } from "./served-agent.ts";
import type { TaskDeps } from "./task-deps.ts";

/**
 * Refuse (429 `QuotaExceeded`, nothing written) when the caller's principal already has its
 * `concurrentTasks` quota of active tasks, as a creation would be refused.
 */
export async function checkConcurrentTasks(deps: TaskDeps, caller: Caller, now: number): Promise<void> {
  const max = (await deps.quotasFor?.(caller.principal))?.concurrentTasks;
  if (max === undefined) return;
  if (deps.store.usage === undefined)
    throw new ConfigError("createApp", [
      { path: "quotas", message: "concurrentTasks needs a store that counts usage (Store.usage)" },
    ]);
  const { activeTasks } = await deps.store.usage({ principal: caller.principal, sinceMs: now });
  if (activeTasks >= max) throw new QuotaExceededError(caller.principal, "concurrentTasks", activeTasks, max);
}

/** The lane of the input at `seq` of `taskId`, if that event is a person's input. */
async function laneAt(deps: TaskDeps, taskId: string, seq: number): Promise<HumanInputSource | undefined> {
  const [event] = await deps.store.read(taskId, { afterSeq: seq - 1, limit: 1 });
  return event?.type === "human_input" && event.seq === seq ? event.source : undefined;
}

/** Fork the caller's task `taskId` as `body` asks; `now` is the app's clock. */
export async function forkTaskFor(
  deps: TaskDeps,
  caller: Caller,
  taskId: string,
  body: z.output<typeof ForkRequest>,
  now: number,
): Promise<ForkResult> {
  const { store, agents, limits } = deps;
  await ownTask(store, taskId, caller);
  // The fork is a root task running as the agent its copied task_created names (as a worker finds it).
  const [created] = await store.read(taskId, { limit: 1 });
  const name = created?.type === "task_created" ? created.agent : undefined;
  const agent = rootAgent(agents, name);
  if (agent === undefined) throw unknownAgent(taskId, name, agents);

  const given = body.edits ?? {};
  const edits: ForkEdits = {};
  if (given.model !== undefined) {
    if (given.model !== agent.model.id)
      throw badRequest(
        `body.edits.model: the fork runs as the agent ${name ?? agents.defaultName}, on its model ${agent.model.id}; a caller cannot choose another`,
        "body.edits.model",
        { model: agent.model.id },
      );
    edits.model = given.model;
  }
  if (given.settings !== undefined) {
    // A caller's provider options reach the provider's request body: only what the agent allows.
    const options = given.settings.providerOptions;
    const refused = options === undefined ? undefined : refusedProviderOption(options, agent.callerProviderOptions);
    if (refused !== undefined) {
      const path = `body.edits.settings.providerOptions.${refused.path}`;
      throw badRequest(`${path}: ${refused.message}`, path);
    }
    edits.settings = given.settings;
  }
  if (given.input !== undefined) {
    const lane = await laneAt(deps, taskId, given.input.seq);
    // The replacing input is recorded on the replaced one's lane: the caller must be allowed there.
    if (lane === "operator")
      throw new ForbiddenError("the input replaced is on the operator lane, which no token speaks on", {
        lane,
        seq: given.input.seq,
      });
    if (lane === "supervisor" && !caller.roles.has("supervisor"))
      throw new ForbiddenError("the input replaced is on the supervisor lane: that needs the supervisor role", {
        lane,
        seq: given.input.seq,
      });
    // Not a person's input: core refuses it (400) with the reason.
    const text = sanitizeText(given.input.text, lane ?? "user", limits.maxTextChars, "body.edits.input.text");
    edits.input = { seq: given.input.seq, text };
  }
  if (given.toolResult !== undefined) {
    const { callId, content, status } = given.toolResult;
    const clean = sanitizeText(content, "user", limits.maxTextChars, "body.edits.toolResult.content");
    edits.toolResult = { callId, content: clean, ...(status === undefined ? {} : { status }) };
  }

  await checkConcurrentTasks(deps, caller, now);
  const fork = await forkTask(store, taskId, {
    ...(body.atSeq === undefined ? {} : { atSeq: body.atSeq }),
    edits,
    actor: caller.actor,
    principal: caller.principal,
  });
  // A fork whose edit sends an input has work at once; any other waits for an input or a resume.
  if ((await store.getTask(fork.taskId)).summary.runnable) deps.workers?.notify(fork.taskId);
  return fork;
}
