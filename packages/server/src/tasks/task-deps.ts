/**
 * What the task actions share, whichever protocol edge calls them (the `/v1` routes, the MCP
 * server): the store, the agents, the limits, the worker pool to tell, and who may approve.
 */

import type { CanApprove, Store } from "@sema-agent/core";
import type { QuotaSettings, Quotas } from "@sema-agent/core/quotas";
import type { AgentRegistry, WorkSignal } from "@sema-agent/worker";
import type { Caller } from "../ingress/caller.ts";
import type { Limits } from "../limits.ts";
import type { TaskQueue } from "../routes/task-queue.ts";

export interface TaskDeps {
  store: Store;
  agents: AgentRegistry;
  limits: Limits;
  workers: WorkSignal | undefined;
  /** Who may decide an approval, for this caller. */
  canApprove: (caller: Caller) => CanApprove;
  /** Inputs to one task, taken one at a time in this process (see `TaskQueue`). */
  inputs: TaskQueue;
  /** Quotas per principal (their prices for `GET /v1/usage`). */
  quotas?: QuotaSettings;
  /** A principal's quotas, from `quotas` and its tokens' records: `concurrentTasks` is checked when a task is created. */
  quotasFor?: (principal: string) => Promise<Quotas | undefined>;
}
