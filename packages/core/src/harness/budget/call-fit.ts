/**
 * Before each model call: does the call fit what is left of the budget? Its input is estimated
 * from the request, its output is bounded by `maxOutputTokens`, which is clamped to the rest, so
 * a call that crosses the limit overshoots it by no more than the input estimate's error (see
 * docs/guide/budgets-and-quotas.md for the bound).
 */
import type { ModelRequest } from "../../ports/model.ts";
import type { TranscriptEntry } from "../../protocol/transcript.ts";
import { type Budget, type BudgetLimit, priceOf } from "./budget.ts";
import type { Headroom } from "./budget-ledger.ts";

/**
 * Characters per token of the estimate: the usual average of English text for the tokenizers of
 * the major providers. Code and JSON run denser, so the estimate can fall short of a provider's
 * count; the previous turn's reported prompt keeps it from falling short of what is known.
 */
export const CHARS_PER_TOKEN = 4;

function entryChars(entry: TranscriptEntry): number {
  switch (entry.role) {
    case "user":
      return entry.content.length;
    case "tool":
      return entry.name.length + entry.content.length;
    case "assistant": {
      let chars = entry.text.length + (entry.reasoning?.length ?? 0);
      for (const call of entry.toolCalls) chars += call.name.length + JSON.stringify(call.input).length;
      return chars;
    }
  }
}

/**
 * The request's input tokens, estimated. With the previous turn's prompt as the provider counted
 * it (`lastPromptTokens`), that count plus the entries since that turn (the turn itself among
 * them), so a long task pays only for what is new; otherwise the whole request: the system text,
 * every entry, the tools' specs and the answer's schema, at {@link CHARS_PER_TOKEN}. Attachments
 * are not counted.
 */
export function estimateInputTokens(request: ModelRequest, lastPromptTokens?: number): number {
  const { transcript } = request;
  let lastTurn = transcript.length - 1;
  while (lastTurn >= 0 && transcript[lastTurn]?.role !== "assistant") lastTurn--;
  if (lastPromptTokens !== undefined && lastTurn >= 0) {
    let chars = 0;
    for (let i = lastTurn; i < transcript.length; i++) chars += entryChars(transcript[i] as TranscriptEntry);
    return lastPromptTokens + Math.ceil(chars / CHARS_PER_TOKEN);
  }
  let chars = request.system.length;
  for (const entry of transcript) chars += entryChars(entry);
  for (const tool of request.tools)
    chars += tool.name.length + tool.description.length + JSON.stringify(tool.inputSchema).length;
  if (request.responseFormat !== undefined) chars += JSON.stringify(request.responseFormat.schema).length;
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** A call that fits, with the output bound it must keep to; or the limit it would cross. */
export type CallFit = { fits: true; maxOutputTokens?: number } | { fits: false; limit: BudgetLimit; text: string };

/**
 * Whether a call with `inputTokens` of input fits `room`: its input must leave at least one token
 * of output under `maxTokens`, and its input's cost (at the full input price) must leave some of
 * `maxCostUsd`. `maxOutputTokens` is then the smaller of the request's own and what the rest buys.
 */
export function fitCall(
  room: Headroom,
  request: Pick<ModelRequest, "maxOutputTokens">,
  inputTokens: number,
  budget: Budget,
  modelId: string,
): CallFit {
  let out = request.maxOutputTokens;
  const lower = (bound: number) => {
    out = out === undefined ? bound : Math.min(out, bound);
  };
  if (room.tokens !== undefined) {
    const rest = Math.floor(room.tokens - inputTokens);
    if (rest < 1) {
      return {
        fits: false,
        limit: "tokens",
        text: `The next model call needs about ${inputTokens} tokens of input, more than the ${Math.max(0, room.tokens)} left of the task's limit of ${budget.maxTokens}.`,
      };
    }
    lower(rest);
  }
  const price = room.costUsd === undefined ? undefined : priceOf(modelId, budget.prices ?? {});
  if (room.costUsd !== undefined && price !== undefined) {
    const inputCost = (inputTokens * price.input) / 1_000_000;
    const rest = price.output > 0 ? Math.floor(((room.costUsd - inputCost) * 1_000_000) / price.output) : Infinity;
    if (room.costUsd - inputCost <= 0 || rest < 1) {
      return {
        fits: false,
        limit: "cost",
        text: `The next model call's input costs about $${inputCost.toFixed(4)}, more than the $${Math.max(0, room.costUsd).toFixed(4)} left of the task's limit of $${budget.maxCostUsd}.`,
      };
    }
    if (Number.isFinite(rest)) lower(rest);
  }
  return out === undefined ? { fits: true } : { fits: true, maxOutputTokens: out };
}
