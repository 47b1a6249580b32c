/**
 * A `Store` wrapper that simulates the death of its host: after `appendsBeforeDeath` appends (and,
 * with `countCreates`, task creations) it dies — either before the next one commits or right after
 * it commits but before the caller hears of it — and from then on every call fails, as for a
 * process that is gone.
 */
import type { Store } from "../ports/store.ts";

/** The error every call of a {@link dyingStore} throws once its host has "died". */
export class SimulatedDeath extends Error {
  constructor() {
    super("simulated death of the host");
    this.name = "SimulatedDeath";
  }
}

/**
 * When a {@link dyingStore} dies: after how many successful appends, whether the fatal append
 * commits first, and whether task creations count as appends.
 */
export interface DyingStoreOptions {
  /** Appends that succeed before the fatal one. */
  appendsBeforeDeath: number;
  /** `before`: the fatal append writes nothing; `after`: it commits, then the host dies. */
  when: "before" | "after";
  /**
   * Count each `createTask` as an append: it may be the fatal write, for operations whose write is
   * a creation (a fork, a child task). Default false: only appends count.
   */
  countCreates?: boolean;
}

/**
 * Wrap `inner` so its host dies after `appendsBeforeDeath` appends (before or after the fatal one
 * commits): then every call throws {@link SimulatedDeath}. For crash-recovery tests; `dead` tells
 * whether it happened.
 */
export function dyingStore(inner: Store, options: DyingStoreOptions): Store & { readonly dead: boolean } {
  let appends = 0;
  let dead = false;
  const guard = () => {
    if (dead) throw new SimulatedDeath();
  };
  /** One counted write: the fatal one dies, before or after `commit` runs. */
  async function write<T>(commit: () => Promise<T>): Promise<T> {
    guard();
    if (appends === options.appendsBeforeDeath) {
      dead = true;
      if (options.when === "after") await commit();
      throw new SimulatedDeath();
    }
    appends++;
    return commit();
  }
  const wrapper: Store & { readonly dead: boolean } = {
    get dead() {
      return dead;
    },
    async append(taskId, events, appendOptions) {
      return write(() => inner.append(taskId, events, appendOptions));
    },
    async createTask(input) {
      if (options.countCreates === true) return write(() => inner.createTask(input));
      guard();
      return inner.createTask(input);
    },
    async getTask(taskId) {
      guard();
      return inner.getTask(taskId);
    },
    async read(taskId, readOptions) {
      guard();
      return inner.read(taskId, readOptions);
    },
    async findInput(taskId, inputId) {
      guard();
      return inner.findInput(taskId, inputId);
    },
    async *watch(taskId, watchOptions) {
      guard();
      for await (const event of inner.watch(taskId, watchOptions)) {
        guard();
        yield event;
      }
    },
    async acquireLease(taskId, leaseOptions) {
      guard();
      return inner.acquireLease(taskId, leaseOptions);
    },
    async renewLease(taskId, token, ttlMs) {
      guard();
      return inner.renewLease(taskId, token, ttlMs);
    },
    async releaseLease(taskId, token) {
      guard();
      return inner.releaseLease(taskId, token);
    },
    async listRunnable(listOptions) {
      guard();
      return inner.listRunnable(listOptions);
    },
    async listLeasedOn(host, listOptions) {
      guard();
      return inner.listLeasedOn(host, listOptions);
    },
    async claimRunnable(claimOptions) {
      guard();
      return inner.claimRunnable(claimOptions);
    },
    async listTasks(listOptions) {
      guard();
      return inner.listTasks(listOptions);
    },
    async putSnapshot(snapshot) {
      guard();
      return inner.putSnapshot(snapshot);
    },
    async latestSnapshot(taskId) {
      guard();
      return inner.latestSnapshot(taskId);
    },
    async close() {
      dead = true;
    },
  };
  // Blobs only when the inner store keeps them, as the port makes them optional.
  const { putBlob, getBlob } = inner;
  if (putBlob !== undefined && getBlob !== undefined) {
    wrapper.putBlob = async (blob) => {
      guard();
      return putBlob.call(inner, blob);
    };
    wrapper.getBlob = async (digest) => {
      guard();
      return getBlob.call(inner, digest);
    };
  }
  // Records too; a put is not counted as an append (it holds no task's events), but dies with the host.
  const { putRecord, getRecord, listRecords } = inner;
  if (putRecord !== undefined && getRecord !== undefined && listRecords !== undefined) {
    wrapper.putRecord = async (input) => {
      guard();
      return putRecord.call(inner, input);
    };
    wrapper.getRecord = async (query) => {
      guard();
      return getRecord.call(inner, query);
    };
    wrapper.listRecords = async (options) => {
      guard();
      return listRecords.call(inner, options);
    };
  }
  return wrapper;
}
