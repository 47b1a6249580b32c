/**
 * The model call of a turn: build the request from the log (after the `beforeModel` hook), check
 * the tool choice, the budget and the quota, stream the call, and collect the turn. A failure that
 * outlasts the retries parks the task (`parked:model`) or fails it; an abort sends the loop back
 * to the boundary, which ends the leg.
 */
import { isSemaError } from "../../protocol/errors.ts";
import type { TaskEvent } from "../../protocol/task-event.ts";
import { buildModelRequest, type RequestContent, toolChoiceProblem } from "../model/model-request.ts";
import { describeFailure } from "../model/model-unavailable.ts";
import { digestRequest } from "../model/request-digest.ts";
import { type CollectedTurn, retryNote, streamModelTurn } from "../model/stream-turn.ts";
import { endForBudget, fitBudget } from "./budget-check.ts";
import { failHook, failTask } from "./leg-end.ts";
import { parkForModel } from "./model-park.ts";
import { parkForQuota } from "./quota-park.ts";
import type { RunningLeg } from "./running-leg.ts";

const NO_IDS: ReadonlySet<string> = new Set();

/** The turn the model gave and its `model_turn`, not yet appended: it goes in with what follows it. */
export interface AnsweredTurn {
  turn: CollectedTurn;
  event: TaskEvent;
}

/** Call the model; the turn it gave, or what the loop does instead (`again` after an abort). */
export async function callModel(leg: RunningLeg): Promise<AnsweredTurn | "again" | "ended"> {
  const signal = leg.stepSignal();
  if (signal.aborted) return "again";
  const { ctx, settings } = leg;
  const { agent } = ctx.options;
  const w = ctx.writer;
  // Synchronous when no entry was added since the last request (an instant turn awaits nothing more).
  const content = leg.blobs.current(w.state.transcript) ?? (await requestBlobs(leg));
  if (content === "ended") return "ended";
  const hookFailure = await leg.hooks.beforeModel(() =>
    buildModelRequest(w.state, settings, leg.offered.specsFor(w.state), content),
  );
  if (hookFailure !== undefined) return failHook(leg, hookFailure);
  const state = w.state;
  // A hook's feedback adds no attachments: the blobs resolved before the hook are all there are.
  const request = buildModelRequest(state, settings, leg.offered.specsFor(state), content);
  const problem = toolChoiceProblem(request);
  if (problem !== undefined) return failTask(leg, "InvalidInput", problem);
  const over = fitBudget(leg, request);
  if (over !== undefined) return endForBudget(leg, over.budget, over.exceeded);
  const { quota } = ctx.options;
  if (quota !== undefined && (await parkForQuota(leg, quota, request)) === "ended") return "ended";
  // Hashed while the model streams: the digest costs the turn no latency.
  const digesting = digestRequest(request);
  digesting.catch(() => undefined);
  w.requestSent();
  const result = await leg.watched(() =>
    streamModelTurn({
      model: agent.model,
      request,
      signal,
      emit: ctx.options.emit,
      taskId: ctx.taskId,
      legId: ctx.legId,
      takenCallIds: state.openToolCalls.length === 0 ? NO_IDS : new Set(state.openToolCalls.map((c) => c.callId)),
      onRetry: async (part) => {
        await w.append([retryNote(part, ctx.legId)]);
      },
    }),
  );
  if (!result.ok) {
    if (signal.aborted) return "again";
    const { failure } = result;
    if (failure.isRetryable && (agent.onModelUnavailable ?? "park") === "park") return parkForModel(leg, failure);
    return failTask(leg, "ModelError", describeFailure(failure));
  }
  const { turn } = result;
  const afterFailure = await leg.hooks.afterModel(turn.text, turn.toolCalls);
  if (afterFailure !== undefined) return failHook(leg, afterFailure);
  const event: TaskEvent = {
    type: "model_turn",
    v: 2,
    legId: ctx.legId,
    sessionSeq: w.state.summary.sessionSeq + 1,
    text: turn.text,
    toolCalls: turn.toolCalls,
    usage: turn.usage,
    finishReason: turn.finishReason,
    request: await digesting,
  };
  // The task records its model; a turn names one only when it differs (a resume with another model).
  if (agent.model.id !== w.state.model) event.model = agent.model.id;
  if (turn.reasoning !== undefined) event.reasoning = turn.reasoning;
  return { turn, event };
}

/**
 * The blobs the next request references. A blob the store lacks fails the task (`BlobNotFound`):
 * the request the log describes cannot be built, and retrying will not build it.
 */
async function requestBlobs(leg: RunningLeg): Promise<RequestContent | "ended"> {
  try {
    return await leg.blobs.resolve(leg.ctx.writer.state.transcript);
  } catch (error) {
    if (!isSemaError(error, "BlobNotFound")) throw error;
    return failTask(leg, error.code, error.message);
  }
}
