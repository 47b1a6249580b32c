/**
 * The worker pool: claims runnable tasks (`store.claimRunnable`, which takes their leases so two
 * workers never share one), runs one leg each under the claimed lease, and emits to the
 * in-process hub. It polls, and is nudged by the API in its process for lower
 * latency. Tasks a process on this machine held when it died are run at once, not after their
 * leases expire. Claims are fair between principals: each free slot goes to the principal with the
 * fewest legs running here (oldest task first among equals), up to `maxPerPrincipal`, so one
 * principal's flood of tasks delays another's by at most one slot's turnover. Stopping is graceful:
 * no new claims, running legs are aborted so they park at their next step boundary
 * (`parked:interrupt`) and release their leases, within a deadline.
 */
import {
  type Agent,
  childAgent,
  DEFAULTS,
  type HarnessOptions,
  isSemaError,
  runLeg,
  type Store,
  type StreamEvent,
} from "@sema-agent/core";
import { holderDiedHere, nodeHolder, tasksOfDeadHoldersHere } from "@sema-agent/core/node";
import type { LeaseHolder } from "@sema-agent/core/protocol";
import type { QuotaGate } from "@sema-agent/core/quotas";
import type { Lease } from "@sema-agent/core/store-kit";
import type { AgentRegistry } from "./agent-registry.ts";

/**
 * How an API in the same process tells its worker pool that there is work (optional: workers
 * also poll). The pool implements it; `@sema-agent/server`'s routes call it.
 */
export interface WorkSignal {
  /** New or changed runnable work on this task. */
  notify(taskId: string): void;
  /** Run this task's next leg even though it is not runnable by the store's rules (a parked task, asked to resume). */
  resume(taskId: string): void;
}

/**
 * Where the legs' events go as they happen (the server's `EventHub` is one): the pool needs only
 * this, so it carries no HTTP.
 */
export interface EventSink {
  /** Called with every event a leg emits, detached from its object (so a bound function); must not throw. */
  readonly publish: (event: StreamEvent) => void;
}

/** How `startWorkers` runs: the store, the agents, and how many legs at once. */
export interface WorkerOptions {
  store: Store;
  agents: AgentRegistry;
  /** Legs run at once. Default 4. */
  concurrency?: number;
  /**
   * Legs of one principal run at once in this pool, at most (the cap is per process: pools on
   * several machines sharing a PostgreSQL store each apply it to their own legs). Default: the
   * pool's concurrency, i.e. no cap beyond the fair share.
   */
  maxPerPrincipal?: number;
  /** How often to look for runnable tasks when not nudged. Default 500 ms. */
  pollMs?: number;
  /** Who this process is on the leases it takes. Default `nodeHolder()` of `@sema-agent/core/node`. */
  holder?: LeaseHolder;
  /** Where the legs' ephemeral deltas go (the API's SSE subscribers read it). */
  hub?: EventSink;
  /**
   * More of the legs' harness options, for a tracer: `childEmit` receives the events of the
   * children a leg runs in this process (the hub gets only the leg's own task's), and
   * `traceparentOf` gives each tool call its span's `traceparent`, so its A2A and MCP requests
   * carry it. `traceEmit(…).harness` of `@sema-agent/otel` fits as it is: only these two are
   * taken from it (its `emit` goes in `hub`). Default: none.
   */
  harness?: Pick<HarnessOptions, "childEmit" | "traceparentOf">;
  /** How long each leg's lease lasts unless renewed (every third of it). Default 30 s. */
  leaseTtlMs?: number;
  /**
   * How often to look for tasks whose lease a process on this machine held when it died (a
   * crashed host, a killed worker), to run them at once instead of after their lease expires.
   * Also done at start. Default 5000 ms.
   */
  recoverEveryMs?: number;
  /**
   * Asked before each model call of every leg (`HarnessOptions.quota`): a task whose principal is
   * at a quota parks (`parked:quota`). Build it with `storeQuotaGate` over the same store, so
   * every worker and API node sharing the store enforces the same totals.
   */
  quota?: QuotaGate;
  /**
   * How long a task naming an agent this pool does not have is left out of its claims before it
   * is looked at again (and reported again): an agent added since, or a task fixed, runs then.
   * Default 60 000 ms. At most 1,000 such tasks are left out at once, the longest known first
   * forgotten, so a claim's `exclude` stays small however many there are.
   */
  unrunnableRetryMs?: number;
  /**
   * Milliseconds since the epoch (`unrunnableRetryMs`, recovery), and the legs' clock
   * (`HarnessOptions.clock`: their leases, timers, backoffs). Default `Date.now`.
   */
  now?: () => number;
  /**
   * Tasks another runner in this process drives (the node's experiments: `driving` of
   * `runExperiment`), asked at each claim and resume: the pool never runs their legs. Default: none.
   */
  exclude?: () => Iterable<string>;
  /** A leg or a poll failed (the task's log stays consistent). Default: `console.error`. */
  onError?: (error: unknown, taskId: string | undefined) => void;
}

/** What `WorkerPool.stop` reports: which legs parked in time and which did not. */
export interface StopResult {
  /** Legs that ended within the deadline. */
  stopped: string[];
  /** Legs still running at the deadline: their leases expire and another worker recovers them. */
  abandoned: string[];
}

/** A running pool: nudge it (`WorkSignal`), see its legs, stop it. */
export interface WorkerPool extends WorkSignal {
  /** Task ids with a leg running in this pool. */
  running(): string[];
  /** Stop claiming and park the running legs; resolves when they ended or the deadline passed. */
  stop(options?: { deadlineMs?: number }): Promise<StopResult>;
}

interface Running {
  abort: AbortController;
  done: Promise<void>;
  /** Whose task it is, once known (claims say; a resumed or recovered task is looked up). */
  principal?: string;
}

/**
 * The most tasks one `claimRunnable` may ask for: every store in the repo refuses a larger
 * `limit` (`InvalidInput`). A pool with more free slots claims in rounds of this size.
 */
const CLAIM_BATCH = 1000;

/** Tasks left out of claims for naming an unknown agent, at most (see `unrunnableRetryMs`). */
export const MAX_UNRUNNABLE = 1000;

/** Resolve after `ms`, or never once `cancel` is called: a stopped pool must leave no timer behind. */
function deadline(ms: number): { reached: Promise<void>; cancel: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const reached = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return { reached, cancel: () => clearTimeout(timer) };
}

/** Start a worker pool over `options.store`; it runs until `stop`. */
export function startWorkers(options: WorkerOptions): WorkerPool {
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const maxPerPrincipal =
    options.maxPerPrincipal === undefined ? undefined : Math.max(1, Math.floor(options.maxPerPrincipal));
  const pollMs = options.pollMs ?? 500;
  const holder = options.holder ?? nodeHolder();
  const ttlMs = options.leaseTtlMs ?? DEFAULTS.leaseTtlMs;
  const recoverEveryMs = options.recoverEveryMs ?? 5000;
  const now = options.now ?? (() => Date.now());
  const retryMs = options.unrunnableRetryMs ?? 60_000;
  let recoveredAt = Number.NEGATIVE_INFINITY;
  // Only the two options it names, whatever else the object holds (an `emit` would replace the hub's).
  const harness: Pick<HarnessOptions, "childEmit" | "traceparentOf"> = {};
  if (options.harness?.childEmit !== undefined) harness.childEmit = options.harness.childEmit;
  if (options.harness?.traceparentOf !== undefined) harness.traceparentOf = options.harness.traceparentOf;
  const onError =
    options.onError ??
    ((error: unknown, taskId: string | undefined) =>
      console.error(`sema worker${taskId === undefined ? "" : ` (task ${taskId})`}:`, error));
  const running = new Map<string, Running>();
  const resumeRequests = new Set<string>();
  // Tasks naming an agent this server does not have → when they were found so: reported once and
  // left out of claims for `retryMs`, not retried every poll. Insertion order is age order.
  const unrunnable = new Map<string, number>();
  const markUnrunnable = (taskId: string) => {
    unrunnable.delete(taskId);
    unrunnable.set(taskId, now());
    for (const oldest of unrunnable.keys()) {
      if (unrunnable.size <= MAX_UNRUNNABLE) break;
      unrunnable.delete(oldest);
    }
  };
  /** Forget the entries older than `retryMs`: the oldest first, stopping at the first that is not. */
  const expireUnrunnable = () => {
    const cutoff = now() - retryMs;
    for (const [taskId, at] of unrunnable) {
      if (at > cutoff) break;
      unrunnable.delete(taskId);
    }
  };
  let stopped = false;
  let nudge: (() => void) | undefined;
  let pending = false;

  const wake = () => {
    pending = true;
    nudge?.();
  };

  /**
   * The agent a task runs as: the registered one it names; for a sub-agent's task, the one its
   * parent's agent delegates to by that name, or the parent's own (as a leg running the child in
   * process would choose), so a child picked up by any worker runs as it would have in its parent.
   */
  async function agentFor(taskId: string): Promise<Agent | undefined> {
    const [created] = await options.store.read(taskId, { limit: 1 });
    if (created?.type !== "task_created") return undefined;
    const name = created.agent;
    if (created.parentTaskId === undefined) return options.agents.get(name ?? options.agents.defaultName);
    const parent = await agentFor(created.parentTaskId);
    if (parent === undefined) return name === undefined ? undefined : options.agents.get(name);
    return childAgent(parent, name);
  }

  /** Run one leg; true when a leg actually ran (so the task may have more work right away). */
  async function runOne(taskId: string, signal: AbortSignal, claimed: Lease | undefined): Promise<boolean> {
    const agent = await agentFor(taskId);
    if (agent === undefined) {
      markUnrunnable(taskId);
      if (claimed !== undefined) await options.store.releaseLease(taskId, claimed.token);
      onError(new Error(`task ${taskId} names an agent this server does not have`), taskId);
      return false;
    }
    const outcome = await runLeg(
      {
        store: options.store,
        agent,
        holder,
        // A lease of a process that died on this machine is taken over at once (recoverDeadHere).
        holderDied: holderDiedHere,
        ...(options.hub === undefined ? {} : { emit: options.hub.publish }),
        ...harness,
        leaseTtlMs: ttlMs,
        ...(options.quota === undefined ? {} : { quota: options.quota }),
        ...(options.now === undefined ? {} : { clock: options.now }),
      },
      taskId,
      // A stopping pool parks its legs as parked:shutdown, which any worker resumes after a restart.
      claimed === undefined ? { shutdown: signal } : { shutdown: signal, lease: claimed },
    );
    return outcome.legId !== undefined;
  }

  function start(taskId: string, claimed?: { lease: Lease; principal: string }): void {
    const abort = new AbortController();
    const done = runOne(taskId, abort.signal, claimed?.lease)
      .catch((error: unknown) => {
        // Another worker holds it: nothing to do here.
        if (!isSemaError(error, "LeaseHeld")) onError(error, taskId);
        return false;
      })
      .then((ran) => {
        running.delete(taskId);
        // The task may have more work already (a steer that arrived as it parked); a task with
        // nothing to do is not looked at again until the next poll, so nothing spins.
        if (ran) wake();
      });
    running.set(taskId, claimed === undefined ? { abort, done } : { abort, done, principal: claimed.principal });
  }

  /** Legs running here per principal, for a fair claim. */
  async function held(): Promise<Record<string, number>> {
    // Principals are names callers chose: no prototype for one called "__proto__" to reach.
    const counts: Record<string, number> = Object.create(null);
    for (const [taskId, leg] of running) {
      if (leg.principal === undefined) {
        const principal = await options.store.getTask(taskId).then(
          (record) => record.principal,
          () => undefined,
        );
        if (principal !== undefined) leg.principal = principal;
      }
      if (leg.principal !== undefined) counts[leg.principal] = (counts[leg.principal] ?? 0) + 1;
    }
    return counts;
  }

  /** Start the tasks a dead process on this machine held (`runLeg` takes their leases over). */
  async function recoverDeadHere(): Promise<void> {
    if (now() - recoveredAt < recoverEveryMs) return;
    recoveredAt = now();
    for (const task of await tasksOfDeadHoldersHere(options.store, concurrency)) {
      if (running.size >= concurrency) return;
      if (!running.has(task.taskId) && !unrunnable.has(task.taskId)) start(task.taskId);
    }
  }

  async function fill(): Promise<void> {
    expireUnrunnable();
    await recoverDeadHere();
    const elsewhere = new Set(options.exclude?.() ?? []);
    for (const taskId of [...resumeRequests]) {
      if (running.size >= concurrency) return;
      resumeRequests.delete(taskId);
      if (!running.has(taskId) && !elsewhere.has(taskId)) start(taskId);
    }
    const free = concurrency - running.size;
    if (free <= 0) return;
    const limit = Math.min(free, CLAIM_BATCH);
    const claims = await options.store.claimRunnable({
      holder,
      ttlMs,
      limit,
      exclude: [...running.keys(), ...unrunnable.keys(), ...elsewhere],
      fairness: maxPerPrincipal === undefined ? { held: await held() } : { held: await held(), maxPerPrincipal },
    });
    for (const { task, lease } of claims) {
      // Stopped while claiming: give the leases back for another worker.
      if (stopped) await options.store.releaseLease(task.taskId, lease.token).catch(() => undefined);
      else start(task.taskId, { lease, principal: task.principal });
    }
    // A full round with slots still free: there may be more to claim now, not at the next poll.
    if (claims.length === limit && running.size < concurrency) pending = true;
  }

  // A store that says when tasks become runnable elsewhere (PostgreSQL) makes claims immediate.
  const unsubscribe = options.store.onRunnable?.(() => wake());

  const loop = (async () => {
    while (!stopped) {
      pending = false;
      try {
        await fill();
      } catch (error) {
        onError(error, undefined);
      }
      if (stopped || pending) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        nudge = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      nudge = undefined;
    }
  })();

  return {
    notify: () => wake(),
    resume(taskId) {
      unrunnable.delete(taskId);
      resumeRequests.add(taskId);
      wake();
    },
    running: () => [...running.keys()],
    async stop(stopOptions = {}) {
      stopped = true;
      unsubscribe?.();
      nudge?.();
      await loop;
      const legs = [...running.entries()];
      for (const [, leg] of legs) leg.abort.abort();
      const ended = new Set<string>();
      const all = Promise.all(legs.map(([taskId, leg]) => leg.done.then(() => ended.add(taskId))));
      // An idle pool (or one whose legs park at once) stops now, not at the deadline.
      const limit = deadline(stopOptions.deadlineMs ?? 10_000);
      await Promise.race([all, limit.reached]);
      limit.cancel();
      const ids = legs.map(([taskId]) => taskId);
      return { stopped: ids.filter((id) => ended.has(id)), abandoned: ids.filter((id) => !ended.has(id)) };
    },
  };
}
