/**
 * `cost`: the task cost at most so many US dollars (graded beyond), each model turn priced by the
 * model that took it, from a price table the caller gives (core carries no vendor prices;
 * `DEFAULT_PRICES` of `@sema-agent/ai-sdk` is one).
 */
import { costUsd, type ModelPrice, priceOf, type Usage } from "@sema-agent/core";
import { defineScorer, type ScoreInput, type Scorer } from "@sema-agent/core/scoring";
import { limitProblem, type OptionProblem, refuseProblems } from "./scorer-kit.ts";
import { withinLimit } from "./within-limit.ts";

/** The limit {@link cost} scores against, and the prices it uses. */
export interface CostOptions {
  /** The most US dollars that score 1. */
  maxUsd: number;
  /**
   * US dollars per million tokens, by model id (without the provider prefix) or a prefix of one,
   * the longest matching key winning: core's `priceOf`, as budgets price.
   */
  prices: Readonly<Record<string, ModelPrice>>;
}

/** A dollar amount for a reason, to three significant digits. */
function usd(amount: number): string {
  return `$${Number(amount.toPrecision(3))}`;
}

/** The problems of a price table. */
function pricesProblems(prices: unknown): OptionProblem[] {
  if (typeof prices !== "object" || prices === null || Array.isArray(prices))
    return [{ path: "prices", message: "must be an object of { input, output, cachedInput? } by model id" }];
  const problems: OptionProblem[] = [];
  for (const [model, price] of Object.entries(prices)) {
    const path = `prices[${JSON.stringify(model)}]`;
    if (typeof price !== "object" || price === null) {
      problems.push({ path, message: "must be an object { input, output, cachedInput? }" });
      continue;
    }
    const { input, output, cachedInput } = price as Partial<Record<keyof ModelPrice, unknown>>;
    problems.push(...limitProblem(`${path}.input`, input), ...limitProblem(`${path}.output`, output));
    if (cachedInput !== undefined) problems.push(...limitProblem(`${path}.cachedInput`, cachedInput));
  }
  return problems;
}

/** Each turn's model and usage: from the log, else the whole usage as one turn of the one model named. */
function turnsOf(input: ScoreInput): { model: string | undefined; usage: Usage }[] | string {
  const recorded = input.events.flatMap((event) => (event.type === "model_turn" ? [event.usage] : []));
  if (recorded.length === input.models.length) return recorded.map((usage, i) => ({ model: input.models[i], usage }));
  // An input built by hand, without the log: priceable only when one model took every turn.
  const models = new Set(input.models);
  if (models.size === 1) return [{ model: input.models[0], usage: input.usage }];
  if (models.size === 0 && input.usage.inputTokens + input.usage.outputTokens === 0) return [];
  return "the log does not say what each model turn used, so the turns cannot be priced";
}

/**
 * A scorer named `cost`: 1 when the task's model turns cost at most `maxUsd` US dollars, else
 * `maxUsd / cost`, graded so twice the limit scores 0.5. Each turn is priced by its own model
 * (`models`, as recorded) with core's `priceOf` and `costUsd` (cached input at its own price when
 * given). A turn whose model has no price in `prices` (or that names no model) scores 0 with the
 * reason `no price for model <id>`: an unpriced cost is not a cheap one. Only the task's own
 * turns are priced: its sub-tasks' usage (`childUsage`) does not say which model spent it.
 *
 * @throws `ConfigError` when `maxUsd` is not a finite number of at least 0, or a price is not
 * `{ input, output, cachedInput? }` of such numbers.
 */
export function cost(options: CostOptions): Scorer {
  const maxUsd = options?.maxUsd;
  const prices = options?.prices;
  refuseProblems("cost", [...limitProblem("maxUsd", maxUsd), ...pricesProblems(prices)]);
  const table = { ...prices };
  return defineScorer({
    name: "cost",
    description: `At most ${usd(maxUsd)} of model turns`,
    score(input) {
      const turns = turnsOf(input);
      if (typeof turns === "string") return { value: 0, reason: turns };
      let spent = 0;
      for (const turn of turns) {
        const price = turn.model === undefined ? undefined : priceOf(turn.model, table);
        if (price === undefined) return { value: 0, reason: `no price for model ${turn.model ?? "(unnamed)"}` };
        spent += costUsd(turn.usage, price);
      }
      return withinLimit(spent, maxUsd, usd, "the task's model turns cost");
    },
  });
}
