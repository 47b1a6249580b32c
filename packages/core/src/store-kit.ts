/**
 * `@sema-agent/core/store-kit`: what a store adapter builds on, so every store keeps the same
 * rules — stamping and validating appends, leases, limits and cursors (`store-rules`), SQL row
 * mapping (`sql-rows`), claims (fair by principal), the summary cache, the live tail, the summary
 * reducer and the state snapshot codec. The conformance suite is on `./testing`.
 *
 * @module @sema-agent/core/store-kit
 */

export { claimByListing } from "./adapters/claim-by-listing.ts";
export { fairListing, fairOrder, limitPerPrincipal } from "./adapters/fair-claims.ts";
export {
  type GroupCommitOptions,
  type GroupCommitSettings,
  groupCommitSettings,
  scheduleFlush,
} from "./adapters/group-commit.ts";
export * from "./adapters/record-rules.ts";
export * from "./adapters/sql-rows.ts";
export * from "./adapters/store-rules.ts";
export * from "./adapters/store-size-limits.ts";
export * from "./adapters/store-stats.ts";
export { SummaryCache } from "./adapters/summary-cache.ts";
export { ChangeNotifier, type TailSource, tailEvents, watchTask } from "./adapters/tail-events.ts";
export * from "./adapters/task-deletion.ts";
export * from "./adapters/task-restore.ts";
export {
  ACTIVE_TASK_SQL,
  addBucket,
  hourStartMs,
  isActiveTask,
  movesUsage,
  usageDeltas,
} from "./adapters/usage-counting.ts";
export { blobDigests } from "./core/blob-digests.ts";
export { canonicalJson, deepFreeze, frozenFromJson, jsonCopy } from "./core/canonical-json.ts";
export { validateEvents } from "./core/event-validation.ts";
export { EMPTY_STATE, stateFromJson, stateToJson, TASK_STATE_VERSION } from "./core/fold.ts";
export { EMPTY_SUMMARY, nextWakeAt, reduceSummary, summarize, summarizeAfter } from "./core/task-summary.ts";
export {
  claimOrderKey,
  isPersonEvent,
  laneOfEvents,
  laneOfSummary,
  laneRank,
  PERSON_HEAD_START_MS,
  type WorkLane,
  type WriteLane,
  writeLaneOf,
} from "./core/work-lane.ts";
export { newId } from "./internal/ids.ts";
export type * from "./ports/store.ts";
