/**
 * Asking the host's quota gate before a model call; at a quota, the leg parks (`parked:quota`)
 * with the note that names it and a silent timer at the window's edge, in the append that ends
 * the leg (as a model park does).
 */
import { quotaWaitId } from "../../core/model-wait.ts";
import type { ModelRequest } from "../../ports/model.ts";
import type { TaskEvent } from "../../protocol/task-event.ts";
import { estimateInputTokens } from "../budget/call-fit.ts";
import type { QuotaGate } from "../quota/quota-gate.ts";
import type { QuotaVerdict } from "../quota/quotas.ts";
import type { RunningLeg } from "./running-leg.ts";

/** Ask `gate` about the call; `ended` when the leg parked (or ended, cancelled meanwhile). */
export async function parkForQuota(leg: RunningLeg, gate: QuotaGate, request: ModelRequest): Promise<"next" | "ended"> {
  const { ctx } = leg;
  const state = ctx.writer.state;
  const verdict = await gate.check({
    principal: state.principal,
    taskId: ctx.taskId,
    modelId: ctx.options.agent.model.id,
    inputTokens: estimateInputTokens(request, state.lastPromptTokens),
  });
  if (verdict === undefined) return "next";
  await ctx.writer.appendWhen((current) => {
    if (current.summary.legId !== ctx.legId) return undefined;
    if (current.summary.status === "cancelled")
      return [{ type: "leg_ended", v: 1, legId: ctx.legId, reason: "cancelled" }];
    return [
      ...quotaParkEvents(verdict, ctx.legId),
      { type: "leg_ended", v: 1, legId: ctx.legId, reason: "parked:quota", detail: verdict.quota },
    ];
  });
  return "ended";
}

/** The note of a quota park and, when the window will allow the call, its silent timer. */
function quotaParkEvents(verdict: QuotaVerdict, legId: string): TaskEvent[] {
  const data: Record<string, string> = { quota: verdict.quota };
  const events: TaskEvent[] = [];
  if (verdict.retryAtMs !== undefined) {
    const due = new Date(verdict.retryAtMs).toISOString();
    data.due = due;
    data.wakeId = quotaWaitId(legId);
    // Never delivered (the next leg retires the timer); kept for whoever reads the log.
    events.push({
      type: "wake_scheduled",
      v: 1,
      wakeId: quotaWaitId(legId),
      due,
      text: verdict.text,
      source: "system",
    });
  }
  return [{ type: "engine_note", v: 1, kind: "quota", text: verdict.text, data, legId }, ...events];
}
