/**
 * The end of a leg that has an answer: the model gave its final text, and the task completes
 * unless something sends the agent back to work — a pending steer, a queued follow-up, an answer
 * that fails the output schema (sent back as a correction) or an `onStop` hook.
 */
import type { PendingInput, TaskState } from "../../core/fold.ts";
import type { DeliveryCarrier } from "../../core/input-rendering.ts";
import { formatHookFeedback } from "../../core/trust-framing.ts";
import { waitingInputs } from "../../core/waiting-inputs.ts";
import type { SemaErrorCode } from "../../protocol/errors.ts";
import { OUTPUT_CORRECTION, type TaskEvent } from "../../protocol/task-event.ts";
import type { HarnessOptions } from "../agent.ts";
import type { HookFailure, LegHooks } from "../hooks/hook-runner.ts";
import { checkOutput, correctionText, DEFAULT_OUTPUT_ATTEMPTS, listedProblems } from "../model/structured-output.ts";
import type { LegWriter } from "./event-writer.ts";

/** What finishing needs of the running leg (see `LegLoop`). */
export interface FinishingLeg {
  writer: LegWriter;
  legId: string;
  options: HarnessOptions;
  hooks: LegHooks;
  deliveryEvents(carrier: DeliveryCarrier, inputs: PendingInput[], state: TaskState): TaskEvent[];
  failTask(code: SemaErrorCode, message: string): Promise<void>;
  failHook(failure: HookFailure): Promise<void>;
  /**
   * Whether the loop has work at this boundary before the task may complete (a stop, a timer due):
   * then the answer is recorded alone and the loop takes over. May throw (a lost lease).
   */
  loopFirst(state: TaskState): boolean;
}

/**
 * The agent would finish with `text`: a pending steer, a queued follow-up or an onStop hook sends
 * it back to work; otherwise the task completes. Returns whether the leg is over.
 *
 * `answer` is the turn that gave `text` when it is not in the log yet: then it goes in with the
 * task's completion and the leg's end, one append where there were two (it is the same fact
 * either way; a death before that append loses the turn, as it would have before). Every other
 * outcome records the answer first, alone, and goes on as for an answer already in the log.
 */
export async function finishTask(leg: FinishingLeg, text: string, answer?: TaskEvent): Promise<boolean> {
  let unwritten = answer === undefined ? [] : [answer];
  const record = async (): Promise<void> => {
    if (unwritten.length === 0) return;
    const events = unwritten;
    unwritten = [];
    await leg.writer.append(events);
  };
  const output = leg.writer.state.settings?.output ?? leg.options.agent.output;
  // A check or a hook sees the state as the log has it, with the answer in it (a steer that came
  // during the model call skips them, as it always did).
  if (output !== undefined || leg.hooks.stopHook) await record();
  const before = waitingInputs(leg.writer.state);
  let result = text;
  if (before.steer.length === 0 && before.nextTurn.length === 0) {
    if (output !== undefined) {
      const checked = await checkOutput(output, text);
      if ("unusable" in checked) {
        await record();
        await leg.failTask("InvalidInput", checked.unusable);
        return true;
      }
      if (!checked.ok) {
        await record();
        return rejectOutput(leg, checked.paths, checked.problems);
      }
      result = checked.json;
    }
    const stop = await leg.hooks.onStop(text);
    if (stop === "continue") {
      await record();
      return false;
    }
    if (stop !== "stop") {
      await record();
      await leg.failHook(stop);
      return true;
    }
  }
  let done = false;
  await leg.writer.appendWhen((state) => {
    const waiting = waitingInputs(state);
    done = false;
    // The loop delivers what waits (from a state that holds the answer) and comes back here.
    if (unwritten.length > 0 && (waiting.steer.length > 0 || waiting.nextTurn.length > 0 || leg.loopFirst(state)))
      return unwritten;
    if (waiting.steer.length > 0) return undefined;
    if (waiting.nextTurn.length > 0) return leg.deliveryEvents("nextTurn", waiting.nextTurn, state);
    done = true;
    return [
      ...unwritten,
      { type: "task_completed", v: 1, result },
      { type: "leg_ended", v: 1, legId: leg.legId, reason: "completed" },
    ];
  });
  return done;
}

/**
 * The final answer failed the output schema: send it back as a correction (recorded like hook
 * feedback, so a resumed leg neither repeats nor forgets it), or fail the task once the model
 * has had `outputAttempts` answers. Returns whether the leg is over.
 */
async function rejectOutput(leg: FinishingLeg, paths: string[], problems: string[]): Promise<boolean> {
  const attempts = leg.options.agent.outputAttempts ?? DEFAULT_OUTPUT_ATTEMPTS;
  if ((leg.writer.state.outputCorrections ?? 0) + 1 < attempts) {
    await leg.writer.appendWhen((state) =>
      waitingInputs(state).steer.length > 0
        ? undefined
        : [
            {
              type: "hook_feedback",
              v: 1,
              hook: OUTPUT_CORRECTION,
              content: formatHookFeedback(correctionText(problems)),
              legId: leg.legId,
            },
          ],
    );
    return false;
  }
  const message = `the final answer does not match the output schema after ${attempts} attempt${attempts === 1 ? "" : "s"}: ${listedProblems(problems).join("; ")}`;
  await leg.writer.append([
    { type: "engine_note", v: 1, kind: "output_invalid", text: message, data: { paths }, legId: leg.legId },
    { type: "task_failed", v: 1, error: { code: "OutputInvalid", message } },
    { type: "leg_ended", v: 1, legId: leg.legId, reason: "failed" },
  ]);
  return true;
}
