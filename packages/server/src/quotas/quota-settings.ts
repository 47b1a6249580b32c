/**
 * The quotas a server enforces per principal (`quotas` of `createApp`, `serve`, `sema.config.*`):
 * a default for every principal and, per principal, quotas that replace it. The API checks
 * `concurrentTasks` at creation (429 `QuotaExceeded`); the workers' quota gate parks a task at the
 * token and dollar quotas (`parked:quota`), over the store's counters.
 */
import {
  type ModelPrice,
  type QuotaGate,
  type Quotas,
  quotasSchema,
  type Store,
  storeQuotaGate,
} from "@sema-agent/core";
import { z } from "zod";

/**
 * Quotas by principal: `default` for every principal not in `principals`, whose entry replaces it
 * whole (an empty object: no quotas for that principal); `prices` for the dollar quotas.
 */
export const quotaSettingsSchema = z.strictObject({
  default: quotasSchema.exactOptional(),
  principals: z.record(z.string().min(1), quotasSchema).exactOptional(),
  /** US dollars per million tokens, by model id prefix, for the dollar quotas (as `Budget.prices`). */
  prices: z
    .record(
      z.string(),
      z.strictObject({
        input: z.number().nonnegative(),
        output: z.number().nonnegative(),
        cachedInput: z.number().nonnegative().exactOptional(),
      }),
    )
    .exactOptional(),
});
/** Quotas by principal (see {@link quotaSettingsSchema}). */
export type QuotaSettings = z.infer<typeof quotaSettingsSchema>;

/** The quotas of `principal` under `settings`, or undefined when it has none. */
export function quotasOf(settings: QuotaSettings | undefined, principal: string): Quotas | undefined {
  if (settings === undefined) return undefined;
  const own = settings.principals === undefined ? undefined : Object.hasOwn(settings.principals, principal);
  return own === true ? settings.principals?.[principal] : settings.default;
}

/** The gate workers run their legs with, for `settings` over `store` (undefined without settings). */
export function quotaGateFor(
  store: Store,
  settings: QuotaSettings | undefined,
  options: { now?: () => number } = {},
): QuotaGate | undefined {
  if (settings === undefined) return undefined;
  const prices: Record<string, ModelPrice> | undefined = settings.prices;
  return storeQuotaGate({
    store,
    quotasFor: (principal) => quotasOf(settings, principal),
    ...(prices === undefined ? {} : { prices }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
}
