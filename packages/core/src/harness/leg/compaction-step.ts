/** Compaction before a model call: older turns summarized when the last prompt neared the window. */
import { compactionCut, shouldCompact, summarize } from "../model/compaction.ts";
import type { RunningLeg } from "./running-leg.ts";

/** Summarize older turns when the last prompt neared the window; a failed summary changes nothing. */
export async function compactIfNeeded(leg: RunningLeg): Promise<void> {
  const { ctx } = leg;
  const w = ctx.writer;
  const settings = ctx.options.agent.compaction;
  if (settings === undefined || !shouldCompact(w.state, settings)) return;
  const throughSeq = compactionCut(w.state, settings.keepRecentTurns ?? 4);
  if (throughSeq === undefined) return;
  const result = await leg.watched(() =>
    summarize(settings.model ?? ctx.options.agent.model, w.state, throughSeq, {
      taskId: ctx.taskId,
      legId: ctx.legId,
      signal: leg.stepSignal(),
    }),
  );
  if ("event" in result) {
    await w.append([result.event]);
    return;
  }
  await w.append([
    {
      type: "engine_note",
      v: 1,
      kind: "compaction_failed",
      text: `Compaction failed: ${result.failure}; the full history is kept.`,
      legId: ctx.legId,
    },
  ]);
}
