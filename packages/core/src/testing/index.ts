/**
 * `@sema-agent/core/testing`: what tests of Sema and of code built on it need — the shared store
 * conformance suite and valid-event constructors.
 */
export { make } from "./event-factories.ts";
export { runStoreConformance, type StoreConformanceOptions } from "./store-conformance.ts";
