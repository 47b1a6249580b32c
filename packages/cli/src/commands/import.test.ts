// `sema import` in process over real SQLite files: export, import into another file, replay there.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import type { ImportResult } from "@sema-agent/core/time-travel";
import { describe, expect, it } from "vitest";
import { recordTrip } from "../../../core/src/testing/sample-trip.ts";
import {
  READ_THEN_ANSWER,
  recordRun,
  resealed,
  sema,
  type Turn,
  type Workspace,
  withSqlite,
  workspace,
} from "../test-support/time-travel.ts";

/** What a terminal would act on (as terminal-safe.ts lists it). */
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** A task recorded by `sema run` and exported to `task.jsonl`; its id and the file's text. */
async function exported(ws: Workspace): Promise<{ taskId: string; file: string }> {
  const taskId = await recordRun(ws.dir, "Count the TODOs", ws.script(READ_THEN_ANSWER), ["--db", ws.db]);
  const ran = await sema(ws.dir, ["export", taskId, "--out", "task.jsonl", "--db", ws.db]);
  expect(ran.code).toBe(0);
  return { taskId, file: readFileSync(join(ws.dir, "task.jsonl"), "utf8") };
}

async function taskCount(db: string): Promise<number> {
  const listed = await sema(join(db, ".."), ["tasks", "--json", "--db", db]);
  return listed.out === "" ? 0 : listed.out.trimEnd().split("\n").length;
}

describe("sema import", () => {
  it("imports an export into another SQLite file under a new id, says how to replay it, and it replays identical", async () => {
    const ws = workspace();
    const { taskId } = await exported(ws);
    const other = join(ws.dir, "other.db");
    const ran = await sema(ws.dir, ["import", "task.jsonl", "--db", other]);
    expect(ran.err).toBe("");
    expect(ran.code).toBe(0);
    const copy = /^Imported task (\S+) as (\S+): 1 task, 11 events, 0 blobs\n/.exec(ran.out);
    expect(copy?.[1]).toBe(taskId);
    const copyId = copy?.[2] ?? "";
    expect(copyId).not.toBe(taskId);
    expect(ran.out).toBe(
      [
        `Imported task ${taskId} as ${copyId}: 1 task, 11 events, 0 blobs`,
        `  ${taskId} → ${copyId}`,
        `Replay it with: sema replay ${copyId} --db ${other}`,
        "",
      ].join("\n"),
    );
    await withSqlite(other, async (store) => {
      expect((await store.getTask(copyId)).summary).toMatchObject({
        status: "completed",
        forkedFrom: { taskId, origin: "import" },
      });
    });
    const replayed = await sema(ws.dir, ["replay", copyId, "--db", other]);
    expect(replayed.code).toBe(0);
    expect(replayed.out).toBe(
      `replay of task ${copyId}: identical\n  turn 1 (seq 6): identical\n  turn 2 (seq 9): identical\n`,
    );
  });

  it("a parked task imported says how to run it on; resumed there, it replays identical", async () => {
    const ws = workspace();
    const write: Turn[] = [
      { toolCalls: [{ name: "write_file", input: { path: "out.txt", content: "hello\n" } }] },
      { text: "Written." },
    ];
    // No person at the terminal: the write parks for an approval.
    const parked = await sema(ws.dir, ["run", "Write it", "--model", ws.script(write), "--db", ws.db]);
    const taskId = /Task (\S+) started/.exec(parked.out)?.[1] ?? "";
    expect(parked.out).toContain(`Task ${taskId} is parked (approval).`);
    expect((await sema(ws.dir, ["export", taskId, "--out", "parked.jsonl", "--db", ws.db])).code).toBe(0);
    const other = join(ws.dir, "other.db");
    const ran = await sema(ws.dir, ["import", "parked.jsonl", "--db", other]);
    expect(ran.code).toBe(0);
    const copyId = /^Imported task \S+ as (\S+):/.exec(ran.out)?.[1] ?? "";
    expect(ran.out).toContain(
      `Replay it with: sema replay ${copyId} --db ${other}\nRun it on with: sema resume ${copyId} --db ${other}\n`,
    );
    const resumed = await sema(ws.dir, ["resume", copyId, "--db", other], { prompt: async () => "y" });
    expect(resumed.code).toBe(0);
    expect(readFileSync(join(ws.dir, "out.txt"), "utf8")).toBe("hello\n");
    const replayed = await sema(ws.dir, ["replay", copyId, "--db", other]);
    expect(replayed.out).toMatch(/: identical\n/);
    expect(replayed.code).toBe(0);
  });

  it("reads the file from stdin with -; --json prints the mapping; --principal makes the tasks its own", async () => {
    const ws = workspace();
    const { taskId } = await exported(ws);
    const other = join(ws.dir, "other.db");
    const ran = await sema(ws.dir, ["import", "-", "--json", "--principal", "ana", "--db", other], {
      stdin: Readable.from([Buffer.from(readFileSync(join(ws.dir, "task.jsonl")))]),
    });
    expect(ran.err).toBe("");
    expect(ran.code).toBe(0);
    const result = JSON.parse(ran.out) as ImportResult;
    expect(result).toMatchObject({ sourceTaskId: taskId, events: 11, blobs: 0 });
    expect(result.tasks).toEqual([{ from: taskId, to: result.taskId }]);
    const listed = await sema(ws.dir, ["tasks", "--json", "--principal", "ana", "--db", other]);
    expect(JSON.parse(listed.out)).toMatchObject({ taskId: result.taskId, principal: "ana", status: "completed" });
  });

  it("maps a task and its children to new ids, each child's following its parent's", async () => {
    const ws = workspace();
    const { taskId } = await withSqlite(ws.db, (store) => recordTrip(store));
    expect((await sema(ws.dir, ["export", taskId, "--with-children", "--out", "trip.jsonl", "--db", ws.db])).code).toBe(
      0,
    );
    const other = join(ws.dir, "other.db");
    const ran = await sema(ws.dir, ["import", "trip.jsonl", "--json", "--db", other]);
    expect(ran.code).toBe(0);
    const result = JSON.parse(ran.out) as ImportResult;
    const [root, child] = result.tasks;
    expect(root).toEqual({ from: taskId, to: result.taskId });
    expect(child?.from.startsWith(`${taskId}~`)).toBe(true);
    expect(child?.to).toBe(`${result.taskId}${child?.from.slice(taskId.length)}`);
    const text = await sema(ws.dir, ["import", "trip.jsonl", "--db", other]);
    expect(text.out).toMatch(
      /^Imported task \S+ as \S+: 2 tasks, \d+ events, 0 blobs\n {2}\S+ → \S+\n {2}\S+~\S+ → \S+~\S+\n/,
    );
  });

  it("refuses a tampered file with the line and why (exit 2), and the target store is left as it was", async () => {
    const ws = workspace();
    const { file } = await exported(ws);
    const other = join(ws.dir, "other.db");
    // One byte changed in the objective.
    writeFileSync(join(ws.dir, "tampered.jsonl"), file.replace('"objective":"Count the', '"objective":"Count thE'));
    const ran = await sema(ws.dir, ["import", "tampered.jsonl", "--db", other]);
    expect(ran).toEqual({
      code: 2,
      out: "",
      err: "sema: export file, line 14: the SHA-256 of the lines before the end line does not match: the file was changed or cut\n",
    });
    // Refused before the store is opened: not even the file is made.
    expect(existsSync(other)).toBe(false);

    // A store that holds a task already keeps just that one.
    expect((await sema(ws.dir, ["import", "task.jsonl", "--db", other])).code).toBe(0);
    for (const [name, text, message] of [
      [
        "cut.jsonl",
        file.slice(0, file.lastIndexOf("{")),
        "sema: export file, line 13: the end line is missing: the file was cut short\n",
      ],
      ["not-json.jsonl", `${file.slice(0, 40)}\n`, "sema: export file, line 1: not JSON\n"],
      [
        "resealed.jsonl",
        resealed(file, (lines) => lines.map((line) => line.replace('"type":"model_turn"', '"type":"model_turnn"'))),
        "sema: export file, line 8: invalid model_turnn event: type: Invalid discriminator value",
      ],
    ] as const) {
      writeFileSync(join(ws.dir, name), text);
      const refused = await sema(ws.dir, ["import", name, "--db", other]);
      expect(refused.code, name).toBe(2);
      expect(refused.err.slice(0, message.length), name).toBe(message);
    }
    expect(await taskCount(other)).toBe(1);
  });

  it("prints the ids a file names terminal-safe", async () => {
    const ws = workspace();
    const { taskId, file } = await exported(ws);
    // A file may name its tasks anything: here an id that would set the terminal's title.
    const evil = "evil\\u001b]0;owned\\u0007\\u202e";
    writeFileSync(
      join(ws.dir, "evil.jsonl"),
      resealed(file, (lines) => lines.map((l) => l.replaceAll(taskId, evil))),
    );
    const ran = await sema(ws.dir, ["import", "evil.jsonl", "--db", join(ws.dir, "other.db")]);
    expect(ran.err).toBe("");
    expect(ran.code).toBe(0);
    expect(ran.out).toContain("Imported task evil\\x1b]0;owned\\x07\\u202e as ");
    expect(ran.out).not.toMatch(UNSAFE);
  });

  it("refuses a malformed command line or a file it cannot read (exit 2) before the store is opened", async () => {
    const ws = workspace();
    for (const [args, extra, message] of [
      [[], {}, /^sema: usage: sema import <file\|->/],
      [["a.jsonl", "b.jsonl"], {}, /^sema: usage: sema import <file\|->/],
      [["a.jsonl", "--principal", " "], {}, /^sema: --principal takes a principal's name/],
      [["a.jsonl", "--with-children"], {}, /^sema: Unknown option '--with-children'/],
      [["missing.jsonl"], {}, /^sema: cannot read missing.jsonl: ENOENT/],
      [
        ["-"],
        { stdin: Object.assign(Readable.from([]), { isTTY: true }) },
        /^sema: sema import -: standard input is a terminal/,
      ],
      [["-"], { stdin: Readable.from([]) }, /^sema: export file, line 1: /],
    ] as const) {
      const ran = await sema(ws.dir, ["import", ...args, "--db", ws.db], extra);
      expect(ran.code, args.join(" ")).toBe(2);
      expect(ran.err).toMatch(message);
      expect(ran.out).toBe("");
    }
    expect(existsSync(ws.db)).toBe(false);
  });
});
