// Errors cross the writer thread's boundary as data and are built again on the main thread: the
// same class, code, fields, message and retryability as the error the thread threw.
import {
  ConfigError,
  InvalidEventError,
  InvalidInputError,
  LeaseHeldError,
  LeaseLostError,
  QuotaExceededError,
  RecordConflictError,
  SemaError,
  SeqConflictError,
  StoreUnavailableError,
  TaskExistsError,
  TaskNotFoundError,
} from "@sema-agent/core/protocol";
import { describe, expect, it } from "vitest";
import { fromWire, toWire } from "./thread-errors.ts";

/** What postMessage does to the data: a structured clone. */
const across = (error: unknown) => fromWire(structuredClone(toWire(error)));

describe("thread errors", () => {
  const errors: SemaError[] = [
    new TaskNotFoundError("t1"),
    new TaskExistsError("t1"),
    new SeqConflictError("t1", 3, 5),
    new LeaseHeldError("t1", { id: "host-a", host: "box", pid: 7 }, "2026-12-01T12:00:00.000Z"),
    new LeaseLostError("t1"),
    new QuotaExceededError("alice", "concurrentTasks", 3, 3),
    new RecordConflictError("experiment", "exp-1", 0, 2),
    new InvalidEventError("events.0.text", "expected string", 2),
    new InvalidInputError("ttlMs must be a positive number of ms", { ttlMs: -1 }),
    new ConfigError("SqliteStore", [{ path: "writer", message: "must be main", unknownKeys: ["x"] }]),
    new SemaError("ApprovalConflict", "call c1 of task t1 is already decided: approved", {
      details: { taskId: "t1", callId: "c1" },
    }),
  ];
  for (const error of errors) {
    it(`rebuilds ${error.name} with its class, code, fields and message`, () => {
      const rebuilt = across(error);
      expect(rebuilt).toBeInstanceOf(error.constructor);
      expect(rebuilt).toBeInstanceOf(SemaError);
      expect(rebuilt.name).toBe(error.name);
      expect(rebuilt.message).toBe(error.message);
      // Every own field: code, isRetryable, details, and the class's own (expectedSeq, holder …).
      expect({ ...rebuilt }).toStrictEqual({ ...error });
      expect((rebuilt as SemaError).toJSON()).toStrictEqual(error.toJSON());
    });
  }

  it("keeps a StoreUnavailable's SQLite cause, its message and code", () => {
    const sqlite = Object.assign(new Error("database is locked"), { code: "ERR_SQLITE_ERROR" });
    const rebuilt = across(new StoreUnavailableError("SQLite store a.db: database is locked", sqlite));
    expect(rebuilt).toBeInstanceOf(StoreUnavailableError);
    expect(rebuilt).toMatchObject({ code: "StoreUnavailable", isRetryable: true });
    expect(rebuilt.message).toBe("SQLite store a.db: database is locked");
    expect(rebuilt.cause).toMatchObject({ message: "database is locked", code: "ERR_SQLITE_ERROR" });
  });

  it("passes any other error as a plain Error with its name and message", () => {
    const rebuilt = across(new TypeError("not a function"));
    expect(rebuilt).toBeInstanceOf(Error);
    expect(rebuilt).not.toBeInstanceOf(SemaError);
    expect(rebuilt).toMatchObject({ name: "TypeError", message: "not a function" });
    expect(across("thrown text")).toMatchObject({ name: "Error", message: "thrown text" });
  });
});
