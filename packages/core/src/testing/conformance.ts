/**
 * `@sema-agent/core/testing/conformance`: the store conformance suite a store adapter runs in its
 * own tests. It registers vitest suites, so it is an entry of its own: importing
 * `@sema-agent/core/testing` needs no vitest, and vitest is an optional peer dependency.
 *
 * @module @sema-agent/core/testing/conformance
 */

export { runStoreConformance, type StoreConformanceOptions } from "./store-conformance.ts";
