/**
 * `@sema-agent/core/testing`: what tests of Sema and of code built on it need — the shared store
 * conformance suite and valid-event constructors.
 */

export { type DyingStoreOptions, dyingStore, SimulatedDeath } from "./dying-store.ts";
export { make } from "./event-factories.ts";
export { type FlakyStore, flakyStore } from "./flaky-store.ts";
export { lookupTool, lookupTurns } from "./lookup-tool.ts";
export { type NoteTool, noteTool, noteTurns } from "./note-tool.ts";
export {
  ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedToolCall,
  type ScriptedTurn,
  type ScriptStep,
} from "./scripted-model.ts";
export { runStoreConformance, type StoreConformanceOptions } from "./store-conformance.ts";
