/** What the route handlers share: the store and the app's settings, resolved once by `createApp`. */
import type { EvalsOptions } from "../evals/experiment-runs.ts";
import type { CatchUpPacer } from "../events/catch-up-pacer.ts";
import type { EventHub } from "../events/event-hub.ts";
import type { FrameCache } from "../events/frame-cache.ts";
import type { StreamBudget } from "../events/stream-budget.ts";
import type { TaskListFeed } from "../events/task-list-feed.ts";
import type { TaskTails } from "../events/task-tail.ts";
import type { ApproverRuleOf } from "../tasks/agent-info.ts";
import type { TaskDeps } from "../tasks/task-deps.ts";

export interface RouteDeps extends TaskDeps {
  hub: EventHub | undefined;
  /** The live tails event streams share (one per task), the ceiling on their queued bytes, the task list feed. */
  streams: { tails: TaskTails; budget: StreamBudget; frames: FrameCache; pacer: CatchUpPacer; list: TaskListFeed };
  /** Milliseconds since the epoch (the app's clock). */
  now: () => number;
  /** Whether `GET /v1/tasks/{taskId}/trace` carries the task's texts (`AppOptions.traceContent`). */
  traceContent: boolean;
  /** Who may decide each agent's calls, as `GET /v1/agents` shows it. */
  approverRuleOf: ApproverRuleOf;
  /** How experiments run on this node: the workers' harness settings and the shutdown signal. */
  experiments?: EvalsOptions;
}
