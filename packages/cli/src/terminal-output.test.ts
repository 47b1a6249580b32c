// What reaches the operator's terminal when a model, a tool or a file name carries escape codes:
// `sema run`, `sema events` and `sema tasks`, in process over a real SQLite file.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "@sema-agent/sqlite";
import { describe, expect, it } from "vitest";
import { main } from "./main.ts";
import { captureIo } from "./test-support/capture-io.ts";

/** OSC 52 (write the clipboard), a title change, BEL, CSI clear screen, C1 CSI, CR, a bidi override. */
const NASTY = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;owned\x07\x1b[2J\x1b[H\x9b31m\r\u202eevil\u2028";
/** The renderer's own styles and its line erase (the thinking line's), the only escape codes it may write. */
const OWN_STYLES = /\x1b\[(?:0|1|2)m|\r\x1b\[2K/g;
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const capture = (cwd: string, tty: boolean) => captureIo(cwd, { tty });

function scripted(dir: string): string {
  const path = join(dir, "script.json");
  writeFileSync(
    path,
    JSON.stringify({
      turns: [
        {
          text: `Hello ${NASTY} there`,
          toolCalls: [
            { name: "list_dir", input: { path: "." } },
            { name: `no_such_tool${NASTY}`, input: {} },
          ],
        },
        { text: `Now writing ${NASTY}`, toolCalls: [{ name: "write_file", input: { path: "x.txt", content: NASTY } }] },
      ],
    }),
  );
  return path;
}

describe("terminal output is safe", () => {
  for (const tty of [false, true]) {
    it(`sema run${tty ? " on a TTY" : ""}: no control byte from the model, a tool or a file name reaches the terminal`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "sema-tty-"));
      writeFileSync(join(dir, `name${NASTY}.txt`), "x");
      const db = join(dir, "test.db");
      const run = capture(dir, tty);
      await main(["run", `Objective ${NASTY}`, "--model", `script:${scripted(dir)}`, "--db", db], run.io);
      const out = run.out().replaceAll(OWN_STYLES, "");
      expect(out).toContain("Hello \\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b]0;owned\\x07\\x1b[2J");
      expect(out).toContain("no_such_tool\\x1b]52"); // the unknown tool's error result, shown as text
      expect(out).toContain("Decide with: sema approve"); // parked on the write, its input shown safely
      expect(out).toContain('"content": "\\u001b]52;c;cm0gLXJmIH4=\\u0007');
      expect(out).not.toMatch(UNSAFE);
      expect(run.err()).not.toMatch(UNSAFE);
    });
  }

  it("sema events and sema tasks: lines are terminal-safe; --json lines are exact JSON with no raw C1 or U+2028", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sema-tty-"));
    writeFileSync(join(dir, `name${NASTY}.txt`), "x");
    const db = join(dir, "test.db");
    await main(["run", `Objective ${NASTY}`, "--model", `script:${scripted(dir)}`, "--db", db], capture(dir, false).io);
    // The ingress strips controls from an objective it records; a log written before it did, or
    // by a host that skipped it, still holds them raw.
    const raw = new SqliteStore({ path: db });
    await raw.createTask({ created: { type: "task_created", v: 1, objective: `Raw ${NASTY}`, principal: "local" } });
    await raw.close();
    const tasks = capture(dir, true);
    expect(await main(["tasks", "--db", db], tasks.io)).toBe(0);
    expect(tasks.out()).toContain("Objective ]52");
    expect(tasks.out()).toContain("Raw \\x1b]52");
    expect(tasks.out()).not.toMatch(UNSAFE);
    const tasksJson = capture(dir, false);
    await main(["tasks", "--json", "--db", db], tasksJson.io);
    expect(tasksJson.out()).not.toMatch(UNSAFE);
    const task = tasksJson
      .out()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { taskId: string; objective: string })
      .find((item) => item.objective.startsWith("Objective"));
    if (task === undefined) throw new Error("the run's task is not listed");

    const events = capture(dir, true);
    expect(await main(["events", task.taskId, "--db", db], events.io)).toBe(0);
    expect(events.out()).toContain("Hello \\x1b]52");
    expect(events.out()).toContain("name\\x1b]52"); // the file name, in list_dir's result
    expect(events.out()).not.toMatch(UNSAFE);

    const json = capture(dir, false);
    expect(await main(["events", task.taskId, "--json", "--db", db], json.io)).toBe(0);
    expect(json.out()).not.toMatch(UNSAFE);
    expect(json.out()).toContain("\\u009b31m\\r\\u202eevil\\u2028");
    const lines = json
      .out()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as unknown);
    const store = new SqliteStore({ path: db });
    const stored = await store.read(task.taskId);
    expect(lines).toEqual(stored);
    expect(stored[0]?.type === "task_created" ? stored[0].objective : "").toBe(task.objective);
    await store.close();
  });
});
