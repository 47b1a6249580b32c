/**
 * Token usage, said once: the model port's finish part, the transcript's turns, `model_turn` and
 * `child_task` events, task summaries and the HTTP API's bodies all use {@link usageSchema}.
 */
import { z } from "zod";

const count = z.number().int().nonnegative();

/**
 * Tokens a model turn (or a child task, summed) used; the cached and reasoning counts when the provider reports them.
 */
export const usageSchema = z.strictObject({
  inputTokens: count,
  outputTokens: count,
  cachedInputTokens: count.exactOptional(),
  reasoningTokens: count.exactOptional(),
});

/** Token counts as the provider reported them (see {@link usageSchema}). */
export type Usage = z.infer<typeof usageSchema>;
