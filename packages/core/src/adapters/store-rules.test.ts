import { describe, expect, it } from "vitest";
import type { Lease, TaskRecord } from "../ports/store.ts";
import { isSemaError } from "../protocol/errors.ts";
import {
  assertLeaseColumnsHeld,
  assertLeaseHeld,
  encodeCursor,
  isLeaseLive,
  taskPageOf,
  taskPageRequest,
} from "./store-rules.ts";

const AT = Date.parse("2026-01-01T00:00:00.000Z");
const lease: Lease = { taskId: "t", token: "tok", holder: { id: "h" }, expiresAt: new Date(AT).toISOString() };

/** The error `check` throws, or undefined. */
function thrown(check: () => void): unknown {
  try {
    check();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe("the lease rules", () => {
  it("holds a lease until the millisecond it expires, not at it, and only for its own token", () => {
    const cases: Array<[Lease | undefined, string, number, boolean]> = [
      [lease, "tok", AT - 1, true],
      [lease, "tok", AT, false],
      [lease, "other", AT - 1, false],
      [undefined, "tok", AT - 1, false],
    ];
    for (const [current, token, now, held] of cases) {
      const onRecord = thrown(() => assertLeaseHeld("t", current, token, now));
      const onColumns = thrown(() =>
        assertLeaseColumnsHeld("t", current?.token ?? null, current === undefined ? null : AT, token, now),
      );
      for (const error of [onRecord, onColumns]) {
        if (held) expect(error).toBeUndefined();
        else expect(isSemaError(error, "LeaseLost")).toBe(true);
      }
      expect(isLeaseLive(current, now)).toBe(current !== undefined && now < AT);
    }
  });
});

describe("the listing page", () => {
  const record = (taskId: string): TaskRecord => ({ taskId, createdAt: `2026-01-0${taskId}` }) as unknown as TaskRecord;

  it("takes the default and the maximum page size, and decodes the cursor", () => {
    expect(taskPageRequest({ principal: "p" })).toEqual({ limit: 50, cursor: undefined });
    const cursor = encodeCursor({ createdAt: "2026-01-02", taskId: "2" });
    expect(taskPageRequest({ principal: "p", limit: 1000, cursor })).toEqual({
      limit: 1000,
      cursor: { createdAt: "2026-01-02", taskId: "2" },
    });
    expect(
      isSemaError(
        thrown(() => taskPageRequest({ principal: "p", limit: 1001 })),
        "InvalidInput",
      ),
    ).toBe(true);
    expect(
      isSemaError(
        thrown(() => taskPageRequest({ principal: "p", cursor: "?" })),
        "InvalidInput",
      ),
    ).toBe(true);
  });

  it("returns the first `limit` rows, with a cursor after the last only when more follow", () => {
    const rows = ["3", "2", "1"];
    expect(taskPageOf(rows, 3, record)).toEqual({ tasks: rows.map(record) });
    expect(taskPageOf(rows, 2, record)).toEqual({
      tasks: [record("3"), record("2")],
      nextCursor: encodeCursor({ createdAt: "2026-01-02", taskId: "2" }),
    });
  });
});
