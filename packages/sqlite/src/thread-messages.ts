/** The messages between `SqliteStore` and its writer thread (`writer: "thread"`); see `thread-writer.ts`. */
import type { GroupCommitSettings } from "@sema-agent/core/store-kit";
import type { WireError } from "./thread-errors.ts";
import type { WriteCommand } from "./write-commands.ts";

/** What the thread is started with (its `workerData`). */
export interface WriterThreadData {
  path: string;
  busyTimeoutMs: number;
  /** `undefined`: group commit off, every write its own transaction. */
  groupCommit: GroupCommitSettings | undefined;
  pollMs: number;
  /**
   * Whether the thread's batches keep to their time budget by its clock. False when the store was
   * given a clock: that clock cannot cross threads, and an injected one times the main-thread
   * batches (a clock standing still never splits one), so the thread's go untimed likewise.
   */
  timeBatches: boolean;
  /** The store's `maxEventBytes` (absent: no limit). */
  maxEventBytes?: number;
}

/** One write: its id (to match the answer), the command, and the time by the store's clock it runs at. */
export interface WriteRequest {
  id: number;
  command: WriteCommand;
  nowMs: number;
  /** The write's lane on the thread (`WriteLane`, see `BatchWriter`); absent: routine. */
  lane?: "attended" | "person";
}

/** To the thread. */
export type ToWriter =
  /** Writes, in the order the store's callers made them. */
  | { type: "write"; writes: WriteRequest[] }
  /** Watch for other connections' commits (`on`), or stop. */
  | { type: "poll"; on: boolean }
  /** Commit what is queued, close the connection, answer `closed`. */
  | { type: "close" };

/** A write's answer: its result or the error that refused it. */
/**
 * A write's outcome. `attended`: it committed in the attended lane (a person waits on it; see
 * `BatchWriter`), so it is told to its caller on arrival, ahead of the answers queued for delivery.
 */
export type WriteAnswer = { id: number; value: unknown; attended?: true } | { id: number; error: WireError };

/** From the thread. */
export type FromWriter =
  /** The answers of one transaction's writes, sent after its COMMIT (or failure), with the totals so far. */
  | { type: "done"; answers: WriteAnswer[]; commits: number; longestMs: number }
  /** Another connection committed since the thread last looked. */
  | { type: "foreign" }
  /** The connection could not be opened: every write fails with this. */
  | { type: "failed"; error: WireError }
  /** Closed, after answering every write. */
  | { type: "closed" };
