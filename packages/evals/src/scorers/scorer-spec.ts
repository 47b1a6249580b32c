/**
 * Scorers named in text, as a command line or a request names them: a built-in scorer that reads
 * each case's `expected` by its name (`exact-match`, `includes`, `regex`, `json-match`,
 * `tool-trajectory`), or a limit with its value (`turns=5`, `tokens=2000`, `cost=0.05`,
 * `latency=30000`). An LLM judge needs a model and a rubric, so it is made in code (`llmJudge`).
 */
import type { ModelPrice } from "@sema-agent/core";
import { ConfigError } from "@sema-agent/core/protocol";
import type { Scorer } from "@sema-agent/core/scoring";
import { cost } from "./cost.ts";
import { exactMatch } from "./exact-match.ts";
import { includes } from "./includes.ts";
import { jsonMatch } from "./json-match.ts";
import { latency } from "./latency.ts";
import { regex } from "./regex.ts";
import { tokens } from "./tokens.ts";
import { toolTrajectory } from "./tool-trajectory.ts";
import { turns } from "./turns.ts";

/** The forms a scorer spec takes. */
export const SCORER_SPECS = [
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

function refuse(spec: string, message: string): ConfigError {
  return new ConfigError("scorer", [{ path: spec, message }]);
}

function limit(spec: string, name: string, text: string): number {
  const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value) || value <= 0) throw refuse(spec, `${name}= takes a positive number`);
  return value;
}

/**
 * The scorer `spec` names (see the module comment); `prices` cost a `cost=` limit's turns.
 * `ConfigError` naming the spec and the forms for anything else.
 */
export function scorerFromSpec(spec: string, options: { prices?: Readonly<Record<string, ModelPrice>> } = {}): Scorer {
  const at = spec.indexOf("=");
  const name = at === -1 ? spec : spec.slice(0, at);
  const arg = at === -1 ? undefined : spec.slice(at + 1);
  const plain = (make: () => Scorer) => {
    if (arg !== undefined) throw refuse(spec, `${name} takes no value`);
    return make();
  };
  const valued = (make: (value: number) => Scorer) => {
    if (arg === undefined) throw refuse(spec, `${name} needs a limit: ${name}=<number>`);
    return make(limit(spec, name, arg));
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
      return valued((maxUsd) => cost({ maxUsd, prices: options.prices ?? {} }));
    case "latency":
      return valued((maxMs) => latency({ maxMs }));
    default:
      throw refuse(spec, `is not a scorer (${SCORER_SPECS.join(", ")})`);
  }
}
