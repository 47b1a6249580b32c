/**
 * A dollar quota counts a call at its model's price, and a model with no price costs nothing: a
 * `costUsdPerDay` over agents whose models are unpriced would never bind (issue 29, finding 11c).
 * Hosts refuse such a configuration where it is given, naming the model and the price to add.
 */
import { ConfigError, type ConfigProblem } from "../../protocol/errors.ts";
import type { Agent } from "../agent.ts";
import { priceOf } from "../budget/budget.ts";
import type { QuotaSettings } from "./quota-settings.ts";
import type { QuotaName, Quotas } from "./quotas.ts";

const DOLLAR_QUOTAS: readonly QuotaName[] = ["costUsdPerDay", "costUsdPerMonth"];

/** The first dollar quota among `all` (with where it was set), if any sets one. */
function firstDollarQuota(all: ReadonlyArray<readonly [string, Quotas | undefined]>): string | undefined {
  for (const [where, quotas] of all)
    for (const quota of DOLLAR_QUOTAS) if (quotas?.[quota] !== undefined) return `${where}.${quota}`;
  return undefined;
}

/** Each model `agent` may call (its own, its compaction's, its sub-agents'), with where it sits. */
function modelsOf(agent: Agent, path: string, out: Map<string, string>, seen: Set<Agent>): void {
  if (seen.has(agent)) return;
  seen.add(agent);
  if (!out.has(agent.model.id)) out.set(agent.model.id, `${path}.model`);
  const compaction = agent.compaction?.model;
  if (compaction !== undefined && !out.has(compaction.id)) out.set(compaction.id, `${path}.compaction.model`);
  for (const [name, sub] of Object.entries(agent.delegation?.agents ?? {}))
    modelsOf(sub, `${path}.delegation.agents.${name}`, out, seen);
}

/**
 * Throws a `ConfigError` (at `where`) when a dollar quota is set — in `settings.default`, in one
 * of `settings.principals`, or in `more` (the token records' quotas, labelled) — while a model an
 * agent may call has no price in `settings.prices`: one problem per unpriced model, naming it and
 * the agent that uses it. A price of 0 is a price (the model is counted free, on purpose).
 */
export function checkQuotaPrices(
  settings: QuotaSettings | undefined,
  agents: Iterable<readonly [string, Agent]>,
  where: string,
  more: ReadonlyArray<readonly [string, Quotas | undefined]> = [],
): void {
  const dollar = firstDollarQuota([
    ["quotas.default", settings?.default],
    ...Object.entries(settings?.principals ?? {}).map(
      ([name, quotas]) => [`quotas.principals.${name}`, quotas] as const,
    ),
    ...more,
  ]);
  if (dollar === undefined) return;
  const models = new Map<string, string>();
  const seen = new Set<Agent>();
  for (const [name, agent] of agents) modelsOf(agent, `agents.${name}`, models, seen);
  const prices = settings?.prices ?? {};
  const problems: ConfigProblem[] = [];
  for (const [modelId, path] of models) {
    if (priceOf(modelId, prices) !== undefined) continue;
    const bare = modelId.includes(":") ? modelId.slice(modelId.indexOf(":") + 1) : modelId;
    problems.push({
      path: "quotas.prices",
      message: `has no price for the model ${JSON.stringify(modelId)} (${path}), so the dollar quota ${dollar} would never count its calls: add prices[${JSON.stringify(bare)}] = { input, output } in USD per million tokens (0 to count it free)`,
    });
  }
  if (problems.length > 0) throw new ConfigError(where, problems);
}
