/** `sema eval run --scorer`: a scorer named in text (`scorerFromSpec` of @sema-agent/evals), a usage error otherwise. */
import { DEFAULT_PRICES } from "@sema-agent/ai-sdk";
import { ConfigError } from "@sema-agent/core/protocol";
import type { Scorer } from "@sema-agent/core/scoring";
import { scorerFromSpec } from "@sema-agent/evals";
import { UsageError } from "../context.ts";

/** The scorer a `--scorer` value names, costed at the vendors' list prices. */
export function cliScorer(spec: string): Scorer {
  try {
    return scorerFromSpec(spec, { prices: DEFAULT_PRICES });
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(`--${error.message}`);
    throw error;
  }
}
