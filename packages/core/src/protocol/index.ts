/**
 * `@sema-agent/core/protocol`: the session log's vocabulary — every event arm and its zod schema,
 * the stream of stored and ephemeral events, the transcript, the task summary's shape, JSON, and
 * every typed error (stable `code`). Nothing here depends on the rest of core.
 *
 * @module @sema-agent/core/protocol
 */

export { checkConfig, functionSchema } from "./config-check.ts";
export type * from "./config-shape.ts";
export * from "./content.ts";
export * from "./errors.ts";
export type * from "./human-input.ts";
export * from "./json.ts";
export * from "./model-settings.ts";
export { nearestName } from "./nearest-name.ts";
export * from "./provenance.ts";
export * from "./provider-options.ts";
export * from "./records.ts";
export * from "./stream-event.ts";
export * from "./task-event.ts";
export * from "./task-summary.ts";
export * from "./trace-context.ts";
export type * from "./transcript.ts";
export * from "./usage.ts";
