/**
 * Retention in the background of `sema serve` and `sema worker`: a pass every `every` (default an
 * hour), run by one node at a time on a shared store. The turn is a record taken by a conditional
 * put (`putRecord` with `expectedVersion`, which the store makes exclusive across processes and
 * nodes): a node runs a pass only while it holds the turn, which lasts until the next pass is due,
 * so two nodes never prune at once, and a node that dies hands the turn on when it expires.
 */
import type { Store } from "@sema-agent/core";
import { isSemaError } from "@sema-agent/core/protocol";
import type { ArchiveSink } from "./archive-sink.ts";
import { durationMs, type RetentionPolicy } from "./policy.ts";
import { type PruneReport, pruneStore } from "./prune.ts";

/** Where the turn is kept: a record no token's principal can name (principals never hold a space). */
export const RETENTION_TURN = { kind: "retention-turn", principal: "sema retention", name: "turn" } as const;

/** Tasks removed at most per pass, so one pass never holds a node for long; the next carries on. */
const TASKS_PER_PASS = 1000;

/** What the background retention needs: the store, the policy, where archives go, who this node is, and a clock. */
export interface BackgroundRetentionOptions {
  store: Store;
  policy: RetentionPolicy;
  archive: ArchiveSink;
  /** This node, unique among the nodes on the store. */
  holder: string;
  /** Default `Date.now`. */
  now?: () => number;
  /** With every task id a pass deleted (see `PruneOptions.onDeleted`). */
  onDeleted?: (taskIds: readonly string[]) => Promise<void>;
  /** After each pass this node ran (not the ones another node had the turn for). */
  onPass?: (report: PruneReport) => void;
  onError: (error: unknown) => void;
}

/** The running background retention. */
export interface BackgroundRetention {
  /** How often it runs, in ms. */
  readonly everyMs: number;
  /** Stop; resolves once a pass in progress has ended. */
  stop(): Promise<void>;
}

/**
 * Take the turn for `ttlMs` unless another holder's is live: true when this node now holds it.
 * A conditional put, so of any number of nodes racing, one wins.
 */
export async function takeTurn(store: Store, holder: string, nowMs: number, ttlMs: number): Promise<boolean> {
  if (store.getRecord === undefined || store.putRecord === undefined) return true;
  const current = await store.getRecord(RETENTION_TURN);
  const body = current?.body as { holder?: unknown; until?: unknown } | undefined;
  if (body !== undefined && body.holder !== holder && typeof body.until === "number" && body.until > nowMs)
    return false;
  try {
    await store.putRecord({
      ...RETENTION_TURN,
      body: { holder, until: nowMs + ttlMs },
      expectedVersion: current?.version ?? 0,
    });
    return true;
  } catch (error) {
    if (isSemaError(error) && error.code === "RecordConflict") return false;
    throw error;
  }
}

/** Start the passes (the first one after `every`). */
export function startRetention(options: BackgroundRetentionOptions): BackgroundRetention {
  const everyMs = durationMs(options.policy.every ?? "1h");
  const now = options.now ?? Date.now;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const pass = async () => {
    const nowMs = now();
    if (!(await takeTurn(options.store, options.holder, nowMs, everyMs))) return;
    const report = await pruneStore(options.store, {
      policy: options.policy,
      nowMs,
      archive: options.archive,
      maxTasks: TASKS_PER_PASS,
      ...(options.onDeleted === undefined ? {} : { onDeleted: options.onDeleted }),
    });
    options.onPass?.(report);
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = pass()
        .catch(options.onError)
        .finally(() => {
          running = undefined;
          schedule();
        });
    }, everyMs);
    // A pass never keeps a process alive on its own.
    timer.unref?.();
  };
  schedule();
  return {
    everyMs,
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await running;
    },
  };
}
