/**
 * `@sema-agent/core/testing`: what tests of Sema and of code built on it need — a scripted model,
 * valid-event constructors, test tools, fault-injecting stores, and a recorded task as a regression
 * test (`assertReplayIdentical`). The store conformance suite,
 * which runs on vitest, is `@sema-agent/core/testing/conformance`.
 *
 * @module @sema-agent/core/testing
 */

export { type DyingStoreOptions, dyingStore, SimulatedDeath } from "./dying-store.ts";
export { make } from "./event-factories.ts";
export { type FlakyStore, flakyStore } from "./flaky-store.ts";
export { lookupTool, lookupTurns } from "./lookup-tool.ts";
export { type NoteTool, noteTool, noteTurns } from "./note-tool.ts";
export { assertReplayIdentical, type ReplayRecordingOptions, replayRecording } from "./replay-recording.ts";
export {
  ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedToolCall,
  type ScriptedTurn,
  type ScriptStep,
} from "./scripted-model.ts";
