/**
 * The end of a leg that has an answer: the model gave its final text, and the task completes
 * unless something sends the agent back to work — a pending steer, a queued follow-up, an answer
 * that fails the output schema (sent back as a correction) or an `onStop` hook.
 */
import type { TaskState } from "../../core/fold.ts";
import { deliveryEvents } from "../../core/input-delivery.ts";
import { formatHookFeedback } from "../../core/trust-framing.ts";
import { waitingInputs } from "../../core/waiting-inputs.ts";
import { OUTPUT_CORRECTION, type TaskEvent } from "../../protocol/task-event.ts";
import { checkOutput, correctionText, DEFAULT_OUTPUT_ATTEMPTS, listedProblems } from "../model/structured-output.ts";
import { failHook, failTask } from "./leg-end.ts";
import type { RunningLeg } from "./running-leg.ts";
import { stopReason } from "./step-boundary.ts";

/**
 * The agent would finish with `text`: a pending steer, a queued follow-up or an onStop hook sends
 * it back to work (`again`); otherwise the task completes (`ended`, as when it fails).
 *
 * `answer` is the turn that gave `text` when it is not in the log yet: then it goes in with the
 * task's completion and the leg's end, one append where there were two (it is the same fact
 * either way; a death before that append loses the turn, as it would have before). Every other
 * outcome records the answer first, alone, and goes on as for an answer already in the log.
 */
export async function finishTask(leg: RunningLeg, text: string, answer?: TaskEvent): Promise<"again" | "ended"> {
  const { writer, options, legId } = leg.ctx;
  let unwritten = answer === undefined ? [] : [answer];
  const record = async (): Promise<void> => {
    if (unwritten.length === 0) return;
    const events = unwritten;
    unwritten = [];
    await writer.append(events);
  };
  const output = writer.state.settings?.output ?? options.agent.output;
  // A check or a hook sees the state as the log has it, with the answer in it (a steer that came
  // during the model call skips them, as it always did).
  if (output !== undefined || leg.hooks.stopHook) await record();
  const before = waitingInputs(writer.state);
  let result = text;
  if (before.steer.length === 0 && before.nextTurn.length === 0) {
    if (output !== undefined) {
      const checked = await checkOutput(output, text);
      if ("unusable" in checked) {
        await record();
        return failTask(leg, "InvalidInput", checked.unusable);
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
      return "again";
    }
    if (stop !== "stop") {
      await record();
      return failHook(leg, stop);
    }
  }
  let done = false;
  await writer.appendWhen((state) => {
    const waiting = waitingInputs(state);
    done = false;
    // The loop delivers what waits (from a state that holds the answer) and comes back here.
    if (unwritten.length > 0 && (waiting.steer.length > 0 || waiting.nextTurn.length > 0 || loopFirst(leg, state)))
      return unwritten;
    if (waiting.steer.length > 0) return undefined;
    if (waiting.nextTurn.length > 0) return deliveryEvents("nextTurn", waiting.nextTurn, state, options.randomBytes);
    done = true;
    return [
      ...unwritten,
      { type: "task_completed", v: 1, result },
      { type: "leg_ended", v: 1, legId, reason: "completed" },
    ];
  });
  return done ? "ended" : "again";
}

/**
 * Whether the loop has work at this boundary before the task may complete (a stop, a timer due):
 * then the answer is recorded alone and the loop takes over. May throw (a lost lease).
 */
function loopFirst(leg: RunningLeg, state: TaskState): boolean {
  return stopReason(leg) !== undefined || state.timers.length > 0;
}

/**
 * The final answer failed the output schema: send it back as a correction (recorded like hook
 * feedback, so a resumed leg neither repeats nor forgets it), or fail the task once the model
 * has had `outputAttempts` answers.
 */
async function rejectOutput(leg: RunningLeg, paths: string[], problems: string[]): Promise<"again" | "ended"> {
  const { writer, options, legId } = leg.ctx;
  const attempts = options.agent.outputAttempts ?? DEFAULT_OUTPUT_ATTEMPTS;
  if ((writer.state.outputCorrections ?? 0) + 1 < attempts) {
    await writer.appendWhen((state) =>
      waitingInputs(state).steer.length > 0
        ? undefined
        : [
            {
              type: "hook_feedback",
              v: 1,
              hook: OUTPUT_CORRECTION,
              content: formatHookFeedback(correctionText(problems)),
              legId,
            },
          ],
    );
    return "again";
  }
  const message = `the final answer does not match the output schema after ${attempts} attempt${attempts === 1 ? "" : "s"}: ${listedProblems(problems).join("; ")}`;
  await writer.append([
    { type: "engine_note", v: 1, kind: "output_invalid", text: message, data: { paths }, legId },
    { type: "task_failed", v: 1, error: { code: "OutputInvalid", message } },
    { type: "leg_ended", v: 1, legId, reason: "failed" },
  ]);
  return "ended";
}
