/**
 * `@sema-agent/core/quotas`: what a host that serves many principals enforces on them — the
 * quota settings and their schema (`quotas` of `createApp`, `serve`, `sema.config.*`), the
 * resolver from a principal to its quotas, the gate the workers put before each model call
 * (`parked:quota`) over the store's usage counters, a principal's usage report, and the check
 * that every model under a dollar quota has a price. An application running its own tasks sets a
 * `Budget` on its agent instead (on the root).
 *
 * @module @sema-agent/core/quotas
 */

export {
  type QuotaCall,
  type QuotaGate,
  type StoreQuotaGateOptions,
  storeQuotaGate,
} from "../harness/quota/quota-gate.ts";
export { checkQuotaPrices } from "../harness/quota/quota-prices.ts";
export {
  type PrincipalUsage,
  principalUsage,
  type QuotaSettings,
  type QuotaTokenSource,
  quotaGateFor,
  quotaResolver,
  quotaSettingsSchema,
  quotasOf,
  tightestQuotas,
} from "../harness/quota/quota-settings.ts";
export {
  type QuotaCallEstimate,
  type QuotaName,
  type Quotas,
  type QuotaUsage,
  type QuotaVerdict,
  quotasSchema,
  quotaUsage,
  usageSinceMs,
} from "../harness/quota/quotas.ts";
