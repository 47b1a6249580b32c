/**
 * Compaction: when the transcript nears a share of the model's context window (as the provider
 * reported the last prompt's size), older turns are summarized by a model call and recorded as a
 * `compaction` event; fold replaces what it covers with the summary. The objective is kept
 * verbatim at the head of the summary, a call is never separated from its result (fold moves the
 * cut), and inputs not yet applied are not in the transcript, so they survive untouched.
 */
import type { TaskState } from "../../core/fold.ts";
import type { Model, ModelRequest } from "../../ports/model.ts";
import type { CompactionEvent } from "../../protocol/task-event.ts";
import type { TranscriptEntry } from "../../protocol/transcript.ts";
import { type StepResult, streamModelTurn } from "./stream-turn.ts";

/**
 * When and how a long transcript is summarized: the model's context window, the share of it that
 * triggers a compaction, how many recent turns stay verbatim, and which model writes the summary.
 */
export interface CompactionSettings {
  /** The model's context window, in tokens. */
  contextWindowTokens: number;
  /** Compact when the last prompt used this share of the window. Default 0.8. */
  threshold?: number;
  /** Assistant turns (with their results) kept verbatim after the summary. Default 4. */
  keepRecentTurns?: number;
  /** Who writes the summary. Default: the agent's model. */
  model?: Model;
}

export const SUMMARY_INSTRUCTIONS =
  "You compress an agent's working history. Write a faithful summary of the conversation below for the agent to continue from: the goal, what was done and found (files, values, decisions, results of tool calls), what failed, what remains to do, and any instructions people gave. Keep exact names, paths, numbers and identifiers. Do not invent anything. Answer with the summary only.";

const OBJECTIVE_HEAD = "[The task's objective, as given:]";
const SUMMARY_HEAD = "[A summary of the earlier work, written when the history grew too long:]";

/** Whether the last prompt came close enough to the window to compact before the next call. */
export function shouldCompact(state: TaskState, settings: CompactionSettings): boolean {
  const used = state.lastPromptTokens;
  return used !== undefined && used >= (settings.threshold ?? 0.8) * settings.contextWindowTokens;
}

/**
 * Where to cut: the seq of the last entry to summarize, keeping the last `keep` assistant turns
 * and everything after them. Undefined when there is too little to summarize.
 */
export function compactionCut(state: TaskState, keep: number): number | undefined {
  let assistants = 0;
  for (let i = state.transcript.length - 1; i >= 0; i--) {
    if (state.transcript[i]?.role !== "assistant") continue;
    assistants++;
    if (assistants === keep) {
      // Everything before this turn is summarized; at least two entries, or it is not worth a call.
      if (i < 2) return undefined;
      return state.transcriptSeqs[i - 1];
    }
  }
  return undefined;
}

/** The entries a summary would replace (those with seq ≤ throughSeq). */
function prefix(state: TaskState, throughSeq: number): TranscriptEntry[] {
  const out: TranscriptEntry[] = [];
  for (let i = 0; i < state.transcript.length && (state.transcriptSeqs[i] ?? 0) <= throughSeq; i++) {
    const entry = state.transcript[i] as TranscriptEntry;
    // The summarizer reads text: an entry's attachments are left out (its text still says what came).
    out.push(
      entry.role === "user" && entry.parts !== undefined
        ? { role: "user", entryId: entry.entryId, content: entry.content }
        : entry,
    );
  }
  return out;
}

/** Ask the summarizer; undefined (with the failure) when it could not answer. */
export async function summarize(
  model: Model,
  state: TaskState,
  throughSeq: number,
  context: { taskId: string; legId: string; signal: AbortSignal },
): Promise<{ event: CompactionEvent } | { failure: string }> {
  const entries = prefix(state, throughSeq);
  const request: ModelRequest = {
    system: SUMMARY_INSTRUCTIONS,
    transcript: [
      ...entries,
      { role: "user", entryId: "compaction-request", content: "Summarize the conversation above as instructed." },
    ],
    tools: [],
  };
  const result: StepResult = await streamModelTurn({
    model,
    request,
    signal: context.signal,
    emit: () => {},
    taskId: context.taskId,
    legId: context.legId,
    takenCallIds: new Set(),
    onRetry: async () => {},
  });
  if (!result.ok) return { failure: `${result.failure.message} (${result.failure.code})` };
  if (result.turn.text.trim() === "") return { failure: "the summary was empty" };
  const objective = state.objective;
  const content = `${OBJECTIVE_HEAD}\n${objective}\n\n${SUMMARY_HEAD}\n${result.turn.text}`;
  return { event: { type: "compaction", v: 1, summary: content, throughSeq, entryId: `compaction:${throughSeq}` } };
}
