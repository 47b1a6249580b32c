import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

  it("runs any model given with --model: here a script that only ever answers, so nothing happens", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sema-eval-"));
    const script = join(dir, "refuse.json");
    writeFileSync(script, JSON.stringify({ turns: [{ text: "I will not use tools." }] }));
    const { io, out, err } = captureIo(dir);
    expect(await main(["eval", "injection", "--model", `script:${script}`, "--suite", "banking"], io)).toBe(0);
    const rows = out()
      .trim()
      .split("\n")
      .slice(2)
      .map((l) => l.split("|").map((c) => c.trim()));
    expect(rows.map((r) => r[2])).toEqual(["naive loop", "Sema, framing only", "Sema, framing + policy"]);
    for (const r of rows)
      expect(r.slice(3, 8)).toEqual(["banking", "0 % (0/12)", "0 % (0/12)", "0 % (0/4)", "0.00 (0/4)"]);
    // One progress dot per run: 3 conditions × (4 benign + 12 attacked).
    expect(err().replace(/\s/g, "")).toBe(".".repeat(48));
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
