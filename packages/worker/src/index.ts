/**
 * `@sema-agent/worker`: Sema's worker pool — claims runnable tasks from a store and runs their
 * legs, fairly between principals — and the registry of agents it runs them as. It serves no
 * HTTP, so a worker-only node (`sema worker`) loads neither Hono nor the API; `@sema-agent/server`
 * builds on it for `serve`.
 *
 * @module @sema-agent/worker
 */

export { type AgentRegistry, createAgentRegistry } from "./agent-registry.ts";
export {
  type EventSink,
  type StopResult,
  startWorkers,
  type WorkerOptions,
  type WorkerPool,
  type WorkSignal,
} from "./worker-pool.ts";
