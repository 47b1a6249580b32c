// What a developer sees of a tool that threw: `sema run` a short dim line (its class and where),
// `sema events` the class on the result's line and the stack below it; `--json` the record as stored.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "./main.ts";
import { captureIo } from "./test-support/capture-io.ts";

describe("a tool that threw", () => {
  it("is shown by sema run and sema events, with its class and stack", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sema-tool-error-"));
    const db = join(dir, "sema.db");
    writeFileSync(
      join(dir, "turns.json"),
      JSON.stringify({
        turns: [{ toolCalls: [{ name: "read_file", input: { path: "missing.txt" } }] }, { text: "ok" }],
      }),
    );
    const run = captureIo(dir);
    expect(await main(["run", "Read it", "--model", `script:${join(dir, "turns.json")}`, "--db", db], run.io)).toBe(0);
    const lines = run.out().split("\n");
    const result = lines.findIndex((line) => line.startsWith("← read_file error:"));
    expect(result).toBeGreaterThan(0);
    // The next line: the class and the frame it was thrown from (read-file.ts, the tool's own code).
    expect(lines[result + 1]).toMatch(/^ {2}Error at \S*read-file\.ts:\d+:\d+\)?$/);

    const taskId = /Task (\S+) started/.exec(run.out())?.[1] ?? "";
    const events = captureIo(dir);
    expect(await main(["events", taskId, "--db", db], events.io)).toBe(0);
    expect(events.out()).toMatch(/tool_result {7}read_file error: .*missing\.txt does not exist.* \[Error\]\n/);
    expect(events.out()).toMatch(/\n {8}Error: missing\.txt does not exist\n {12}at \S*read-file\.ts/);

    const json = captureIo(dir);
    expect(await main(["events", taskId, "--json", "--db", db], json.io)).toBe(0);
    const recorded = json
      .out()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; content?: string; error?: { name: string; stack?: string } })
      .find((event) => event.type === "tool_result");
    expect(recorded?.error?.name).toBe("Error");
    expect(recorded?.error?.stack).toContain("read-file.ts");
    // The model's text is the message alone.
    expect(recorded?.content).toContain("Error: missing.txt does not exist");
    expect(recorded?.content).not.toContain("read-file.ts");
  });
});
