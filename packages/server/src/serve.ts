/**
 * `serve`: the embedded default in one call — the API and a worker pool in one process over one
 * store, on loopback unless told otherwise, with the first token created on an empty token store.
 * This is what `sema serve` runs.
 */
import type { LeaseHolder, Store } from "@sema-agent/core";
import { type AgentRegistry, type StopResult, startWorkers, type WorkerPool } from "@sema-agent/worker";
import { createApp } from "./app.ts";
import type { ApproverSettings } from "./approval-policy.ts";
import { EventHub } from "./events/event-hub.ts";
import { ensureFirstToken } from "./ingress/first-token.ts";
import { createTokenIngress } from "./ingress/token-ingress.ts";
import type { CreatedToken, TokenStore } from "./ingress/token-store.ts";
import type { Limits } from "./limits.ts";
import { listen } from "./listen.ts";

export interface ServeOptions {
  store: Store;
  tokens: TokenStore;
  agents: AgentRegistry;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default 7777; 0 picks a free port. */
  port?: number;
  limits?: Partial<Limits>;
  /** Who may decide approvals (default: the `approver` role); see `AppOptions.approvers`. */
  approvers?: ApproverSettings;
  /** `false`: an API-only node; tasks run on workers elsewhere (they share the store). */
  workers?:
    | { concurrency?: number; maxPerPrincipal?: number; pollMs?: number; holder?: LeaseHolder; leaseTtlMs?: number }
    | false;
  onError?: (error: unknown, taskId: string | undefined) => void;
}

export interface Serving {
  url: string;
  /** Set on the first start (no token existed): show it once, it is not stored. */
  firstToken?: CreatedToken;
  /** Absent on an API-only node. */
  workers?: WorkerPool;
  /**
   * Graceful stop: the workers stop claiming and park their legs within `deadlineMs` (default
   * 10 s), then the HTTP server closes (open event streams end). The store and token store stay
   * open: the caller closes them.
   */
  close(options?: { deadlineMs?: number }): Promise<StopResult>;
}

export async function serve(options: ServeOptions): Promise<Serving> {
  const firstToken = await ensureFirstToken(options.tokens);
  const hub = new EventHub();
  const workers =
    options.workers === false
      ? undefined
      : startWorkers({
          store: options.store,
          agents: options.agents,
          hub,
          ...options.workers,
          ...(options.onError === undefined ? {} : { onError: options.onError }),
        });
  const app = createApp({
    store: options.store,
    agents: options.agents,
    ingress: createTokenIngress(options.tokens),
    hub,
    ...(workers === undefined ? {} : { workers }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.approvers === undefined ? {} : { approvers: options.approvers }),
  });
  let listening: Awaited<ReturnType<typeof listen>>;
  try {
    listening = await listen(app, {
      ...(options.host === undefined ? {} : { host: options.host }),
      ...(options.port === undefined ? {} : { port: options.port }),
    });
  } catch (error) {
    await workers?.stop({ deadlineMs: 0 });
    throw error;
  }
  return {
    url: listening.url,
    ...(firstToken === undefined ? {} : { firstToken }),
    ...(workers === undefined ? {} : { workers }),
    async close(closeOptions = {}) {
      const result = (await workers?.stop(closeOptions)) ?? { stopped: [], abandoned: [] };
      await listening.close();
      return result;
    },
  };
}
