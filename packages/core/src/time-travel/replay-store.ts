/**
 * The store of a replay: a `MemoryStore` holding the copy, which feeds in the recorded events from
 * outside the leg (`isFed`) at the point of the log where they were recorded. Each fed event waits
 * until the replay has written as many steps (`isStep`) as the recording had before it, and goes
 * in before the harness next reads or writes the task: as it was in the log when the recorded leg
 * next looked.
 */
import type { MemoryStore } from "../adapters/memory-store.ts";
import type {
  AcquireLeaseOptions,
  AppendOptions,
  Claim,
  ClaimOptions,
  CreateTaskInput,
  Lease,
  ListRunnableOptions,
  ListTasksOptions,
  ReadOptions,
  Snapshot,
  Store,
  TaskPage,
  TaskRecord,
  WatchOptions,
} from "../ports/store.ts";
import type { StoredEvent, TaskEvent } from "../protocol/task-event.ts";
import { isStep } from "./event-origin.ts";
import { unstamped } from "./unstamped.ts";

/**
 * What a replay is fed after `steps` steps: a recorded event, or (`leg`) the start of a leg a host
 * began on a task that was not runnable (it called `runLeg` itself, with no resume recorded).
 */
export type FedEvent = { steps: number; event: StoredEvent } | { steps: number; leg: true };

export class ReplayStore implements Store {
  readonly #inner: MemoryStore;
  readonly #taskId: string;
  readonly #fed: FedEvent[];
  readonly #external: ReadonlySet<string>;
  #steps = 0;
  #legs = 0;

  constructor(inner: MemoryStore, taskId: string, fed: readonly FedEvent[], externalResults: ReadonlySet<string>) {
    this.#inner = inner;
    this.#taskId = taskId;
    this.#fed = [...fed];
    this.#external = externalResults;
  }

  /** Steps the replay has written. */
  get steps(): number {
    return this.#steps;
  }

  /** Whether recorded events are still to be fed. */
  get pending(): boolean {
    return this.#fed.length > 0;
  }

  /**
   * Whether a host started a leg here though the task was not runnable: true once per such start
   * fed since the last call (a leg the replay runs anyway, as runnable, is that start too).
   */
  takeLeg(): boolean {
    const started = this.#legs > 0;
    this.#legs = 0;
    return started;
  }

  /** Feed every event due by now; with `force`, the next one whatever the steps (the replay waits for it). */
  async feed(force = false): Promise<void> {
    while (this.#fed.length > 0) {
      const next = this.#fed[0] as FedEvent;
      if (next.steps > this.#steps && !force) return;
      force = false;
      this.#fed.shift();
      if ("leg" in next) {
        this.#legs++;
        continue;
      }
      const { lastSeq } = await this.#inner.getTask(this.#taskId);
      await this.#inner.append(this.#taskId, [unstamped(next.event)], { expectedSeq: lastSeq });
    }
  }

  async #before(taskId: string): Promise<void> {
    if (taskId === this.#taskId) await this.feed();
  }

  async createTask(input: CreateTaskInput): Promise<StoredEvent[]> {
    return this.#inner.createTask(input);
  }
  async getTask(taskId: string): Promise<TaskRecord> {
    await this.#before(taskId);
    return this.#inner.getTask(taskId);
  }
  async append(taskId: string, events: TaskEvent[], options: AppendOptions): Promise<StoredEvent[]> {
    await this.#before(taskId);
    const stored = await this.#inner.append(taskId, events, options);
    if (taskId === this.#taskId) for (const event of stored) if (isStep(event, this.#external)) this.#steps++;
    return stored;
  }
  async read(taskId: string, options?: ReadOptions): Promise<StoredEvent[]> {
    await this.#before(taskId);
    return this.#inner.read(taskId, options);
  }
  findInput(taskId: string, inputId: string): Promise<StoredEvent | undefined> {
    return this.#inner.findInput(taskId, inputId);
  }
  watch(taskId: string, options?: WatchOptions): AsyncIterable<StoredEvent> {
    return this.#inner.watch(taskId, options);
  }
  async acquireLease(taskId: string, options: AcquireLeaseOptions): Promise<Lease> {
    await this.#before(taskId);
    return this.#inner.acquireLease(taskId, options);
  }
  renewLease(taskId: string, token: string, ttlMs: number): Promise<Lease> {
    return this.#inner.renewLease(taskId, token, ttlMs);
  }
  releaseLease(taskId: string, token: string): Promise<void> {
    return this.#inner.releaseLease(taskId, token);
  }
  listRunnable(options?: ListRunnableOptions): Promise<TaskRecord[]> {
    return this.#inner.listRunnable(options);
  }
  listLeasedOn(host: string, options?: ListRunnableOptions): Promise<TaskRecord[]> {
    return this.#inner.listLeasedOn(host, options);
  }
  claimRunnable(options: ClaimOptions): Promise<Claim[]> {
    return this.#inner.claimRunnable(options);
  }
  listTasks(options: ListTasksOptions): Promise<TaskPage> {
    return this.#inner.listTasks(options);
  }
  putBlob(blob: { digest: string; bytes: Uint8Array }): Promise<void> {
    return this.#inner.putBlob(blob);
  }
  getBlob(digest: string): Promise<Uint8Array | undefined> {
    return this.#inner.getBlob(digest);
  }
  putSnapshot(snapshot: Snapshot): Promise<void> {
    return this.#inner.putSnapshot(snapshot);
  }
  latestSnapshot(taskId: string): Promise<Snapshot | undefined> {
    return this.#inner.latestSnapshot(taskId);
  }
  close(): Promise<void> {
    return this.#inner.close();
  }
}
