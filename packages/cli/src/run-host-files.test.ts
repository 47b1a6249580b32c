// Finding 3 of issue 13 for `sema run`: the working directory stays the tools' root, but the
// store and the config files the CLI uses can never be written by a tool.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "@sema-agent/sqlite";
import { describe, expect, it } from "vitest";
import { main } from "./main.ts";
import { captureIo } from "./test-support/capture-io.ts";

/** stdout and stderr together, as a person at the terminal reads them. */
function capture(cwd: string) {
  let out = "";
  const c = captureIo(cwd);
  c.io.stderr = { write: (t: string) => (out += t) };
  c.io.stdout = { write: (t: string) => (out += t), isTTY: false };
  return { io: c.io, out: () => out };
}

describe("sema run and the host's own files", () => {
  it("refuses writes to the store (and its -wal/-shm) and to sema.config.*, and writes the rest", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sema-run-host-"));
    const calls = [
      { name: "write_file", input: { path: "sema.config.mjs", content: "process.exit(66);\n" } },
      { name: "append_file", input: { path: ".sema/sema.db", content: "garbage" } },
      { name: "write_file", input: { path: ".sema/sema.db-wal", content: "garbage" } },
      { name: "append_file", input: { path: "./.sema/../.sema/sema.db-shm", content: "garbage" } },
      { name: "write_file", input: { path: "sema.config.json", content: "{}" } },
      { name: "write_file", input: { path: "out.txt", content: "fine\n" } },
    ];
    const script = join(dir, "turns.json");
    writeFileSync(script, JSON.stringify({ turns: [{ toolCalls: calls }, { text: "Done." }] }));
    const c = capture(dir);
    expect(await main(["run", "Take over", "--yes", "--model", `script:${script}`], c.io)).toBe(0);

    const store = new SqliteStore({ path: join(dir, ".sema", "sema.db") });
    const taskId = /Task (\S+) started/.exec(c.out())?.[1] ?? "";
    const results = (await store.read(taskId)).flatMap((event) =>
      event.type === "tool_result" ? [{ status: event.status, content: event.content }] : [],
    );
    await store.close();
    expect(results.map((result) => result.status)).toEqual(["error", "error", "error", "error", "error", "ok"]);
    for (const refused of results.slice(0, 5))
      expect(refused.content).toContain("is the agent host's own store or configuration: it cannot be written");
    expect(existsSync(join(dir, "sema.config.mjs"))).toBe(false);
    expect(existsSync(join(dir, "sema.config.json"))).toBe(false);
    expect(
      readFileSync(join(dir, ".sema", "sema.db"))
        .subarray(0, 15)
        .toString(),
    ).toBe("SQLite format 3");
    expect(readFileSync(join(dir, "out.txt"), "utf8")).toBe("fine\n");
  });
});
