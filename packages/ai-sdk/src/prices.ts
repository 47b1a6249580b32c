/**
 * Vendor list prices live here, with the providers, not in core: core only prices what the host
 * configures (`Budget.prices`), so a price change is a release of this package.
 */
import type { ModelPrice } from "@sema-agent/core";

/**
 * List prices of a few common models (USD per million tokens), matched by the model id after its
 * provider prefix, longest prefix first. Pass as (or spread into) `Budget.prices`; the CLI and
 * `sema serve` do so for every agent they load.
 */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  "claude-opus-4": { input: 15, output: 75, cachedInput: 1.5 },
  "claude-sonnet-4": { input: 3, output: 15, cachedInput: 0.3 },
  "claude-haiku-4": { input: 1, output: 5, cachedInput: 0.1 },
  "gpt-5-mini": { input: 0.25, output: 2, cachedInput: 0.025 },
  "gpt-5-nano": { input: 0.05, output: 0.4, cachedInput: 0.005 },
  "gpt-5": { input: 1.25, output: 10, cachedInput: 0.125 },
  "gpt-4.1": { input: 2, output: 8, cachedInput: 0.5 },
  "gpt-4o-mini": { input: 0.15, output: 0.6, cachedInput: 0.075 },
  "gpt-4o": { input: 2.5, output: 10, cachedInput: 1.25 },
});
