/**
 * The scorers `sema eval run --scorer` names: a built-in scorer by its name, or a limit with its
 * value (`turns=5`, `tokens=2000`, `cost=0.05`, `latency=30000`). What a scorer compares with comes
 * from each case's `expected` (a regex's pattern, a trajectory's `toolCalls` too).
 */
import { DEFAULT_PRICES } from "@sema-agent/ai-sdk";
import type { Scorer } from "@sema-agent/core/scoring";
import {
  cost,
  exactMatch,
  includes,
  jsonMatch,
  latency,
  regex,
  tokens,
  toolTrajectory,
  turns,
} from "@sema-agent/evals";
import { UsageError } from "../context.ts";

/** The names `--scorer` takes, with what each measures (the usage text lists them). */
export const SCORER_NAMES = [
  "exact-match",
  "includes",
  "regex",
  "json-match",
  "tool-trajectory",
  "turns=N",
  "tokens=N",
  "cost=USD",
  "latency=MS",
] as const;

function limit(name: string, text: string): number {
  const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value) || value <= 0)
    throw new UsageError(`--scorer ${name}= takes a positive number, got ${JSON.stringify(text)}`);
  return value;
}

/** The scorer a `--scorer` value names; `UsageError` listing the names for anything else. */
export function scorerFromSpec(spec: string): Scorer {
  const at = spec.indexOf("=");
  const name = at === -1 ? spec : spec.slice(0, at);
  const arg = at === -1 ? undefined : spec.slice(at + 1);
  const plain = (make: () => Scorer) => {
    if (arg !== undefined) throw new UsageError(`--scorer ${name} takes no value`);
    return make();
  };
  const valued = (make: (value: number) => Scorer) => {
    if (arg === undefined) throw new UsageError(`--scorer ${name} needs a limit: ${name}=<number>`);
    return make(limit(name, arg));
  };
  switch (name) {
    case "exact-match":
      return plain(() => exactMatch());
    case "includes":
      return plain(() => includes());
    case "regex":
      return plain(() => regex());
    case "json-match":
      return plain(() => jsonMatch());
    case "tool-trajectory":
      return plain(() => toolTrajectory());
    case "turns":
      return valued((max) => turns({ max }));
    case "tokens":
      return valued((max) => tokens({ max }));
    case "cost":
      return valued((maxUsd) => cost({ maxUsd, prices: DEFAULT_PRICES }));
    case "latency":
      return valued((maxMs) => latency({ maxMs }));
    default:
      throw new UsageError(`--scorer ${spec}: not a scorer (${SCORER_NAMES.join(", ")})`);
  }
}
