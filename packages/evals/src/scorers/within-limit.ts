/**
 * The grading the limit scorers (`turns`, `tokens`, `cost`, `latency`) share: 1 within the
 * limit, else the limit over what was spent, so twice the limit scores 0.5 and ten times 0.1.
 */
import type { Score } from "@sema-agent/core/scoring";

/**
 * 1 when `spent` is at most `limit`, else `limit / spent` with a reason saying both (`said`
 * renders an amount: `12 turns`, `$0.0140`).
 */
export function withinLimit(spent: number, limit: number, said: (amount: number) => string, what: string): Score {
  if (spent <= limit) return { value: 1 };
  return { value: limit / spent, reason: `${what} ${said(spent)}, over the limit of ${said(limit)}` };
}
