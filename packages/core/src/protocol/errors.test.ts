// Errors from two installed copies of the package still recognize each other: a second copy of
// this very module (a separate module instance, as a second install would load) is imported here.
import { describe, expect, it } from "vitest";
import * as mine from "./errors.ts";

describe("Sema errors across copies of the package", () => {
  it("isSemaError and instanceof SemaError hold for an error of another copy", async () => {
    // A query string makes the loader treat it as another module, with its own classes.
    const secondCopy = "./errors.ts?second-copy";
    const other = (await import(secondCopy)) as typeof mine;
    expect(other.SemaError).not.toBe(mine.SemaError);
    const foreign = new other.TaskFinishedError("t1", "completed");
    expect(mine.isSemaError(foreign)).toBe(true);
    expect(mine.isSemaError(foreign, "TaskFinished")).toBe(true);
    expect(mine.isSemaError(foreign, "LeaseHeld")).toBe(false);
    expect(foreign instanceof mine.SemaError).toBe(true);
    expect(other.isSemaError(new mine.LeaseHeldError("t1", { id: "h" }, "2026-01-01T00:00:00.000Z"), "LeaseHeld")).toBe(
      true,
    );
  });

  it("subclasses keep their own instanceof, and nothing unbranded passes", () => {
    const finished = new mine.TaskFinishedError("t1", "cancelled");
    expect(finished instanceof mine.TaskFinishedError).toBe(true);
    expect(finished instanceof mine.LeaseHeldError).toBe(false);
    expect(new Error("plain") instanceof mine.SemaError).toBe(false);
    expect(mine.isSemaError({ code: "TaskFinished", message: "forged" })).toBe(false);
    expect(mine.isSemaError(null)).toBe(false);
  });
});
