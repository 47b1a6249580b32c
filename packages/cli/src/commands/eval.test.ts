import { describe, expect, it } from "vitest";
import { main } from "../main.ts";
import { captureIo } from "../test-support/capture-io.ts";

describe("sema eval injection", () => {
  it("prints the suite's table for the scripted models", async () => {
    const { io, out } = captureIo("/nonexistent");
    expect(await main(["eval", "injection", "--suite", "banking"], io)).toBe(0);
    const lines = out()
      .trim()
      .split("\n")
      .map((l) => l.replace(/ +/g, " "));
    expect(lines[0]).toMatch(/^\| Model \| Condition \| Environment \| Attack success \| Utility under attack \|/);
    expect(lines).toContain(
      "| obedient | naive loop | banking | 100 % (12/12) | 75 % (9/12) | 100 % (4/4) | 0.00 (0/4) |",
    );
    expect(lines).toContain(
      "| obedient | Sema, framing + policy | banking | 0 % (0/12) | 100 % (12/12) | 100 % (4/4) | 0.00 (0/4) |",
    );
    expect(lines).toHaveLength(2 + 2 * 3);
  });

  it("refuses an unknown suite or a missing 'injection' with a usage error", async () => {
    const unknown = captureIo("/nonexistent");
    expect(await main(["eval", "injection", "--suite", "nope"], unknown.io)).toBe(2);
    expect(unknown.err()).toMatch(/no suite nope: one of mailbox, workspace, banking, limits, all/);
    const missing = captureIo("/nonexistent");
    expect(await main(["eval"], missing.io)).toBe(2);
    expect(missing.err()).toMatch(/usage: sema eval injection/);
  });
});
