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
}

/**
 * The agent would finish with `text`: a pending steer, a queued follow-up or an onStop hook sends
 * it back to work; otherwise the task completes. Returns whether the leg is over.
 */
export async function finishTask(leg: FinishingLeg, text: string): Promise<boolean> {
  const before = waitingInputs(leg.writer.state);
  let result = text;
  if (before.steer.length === 0 && before.nextTurn.length === 0) {
    const output = leg.writer.state.settings?.output ?? leg.options.agent.output;
    if (output !== undefined) {
      const checked = await checkOutput(output, text);
      if ("unusable" in checked) {
        await leg.failTask("InvalidInput", checked.unusable);
        return true;
      }
      if (!checked.ok) return rejectOutput(leg, checked.paths, checked.problems);
      result = checked.json;
    }
    const stop = await leg.hooks.onStop(text);
    if (stop === "continue") return false;
    if (stop !== "stop") {
      await leg.failHook(stop);
      return true;
    }
  }
  let done = false;
  await leg.writer.appendWhen((state) => {
    const waiting = waitingInputs(state);
    done = false;
    if (waiting.steer.length > 0) return undefined;
    if (waiting.nextTurn.length > 0) return leg.deliveryEvents("nextTurn", waiting.nextTurn, state);
    done = true;
    return [
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
