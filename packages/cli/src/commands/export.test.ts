// `sema export` in process over real SQLite files: the file byte for byte, --out, --force, --with-children.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { exportTask, parseExport } from "@sema-agent/core/time-travel";
import { describe, expect, it } from "vitest";
import { recordTrip } from "../../../core/src/testing/sample-trip.ts";
import { READ_THEN_ANSWER, recordRun, sema, withSqlite, workspace } from "../test-support/time-travel.ts";

describe("sema export", () => {
  it("writes exactly what exportTask makes to stdout: data, the task's text as stored (not made terminal-safe)", async () => {
    const ws = workspace();
    const taskId = await recordRun(ws.dir, "Count the TODOs \u202e é", ws.script(READ_THEN_ANSWER), ["--db", ws.db]);
    const ran = await sema(ws.dir, ["export", taskId, "--db", ws.db]);
    expect(ran.err).toBe("");
    expect(ran.code).toBe(0);
    const exportedAt = Date.parse(
      (JSON.parse(ran.out.slice(0, ran.out.indexOf("\n"))) as { exportedAt: string }).exportedAt,
    );
    const made = await withSqlite(ws.db, (store) => exportTask(store, taskId, { now: () => exportedAt }));
    expect(ran.out).toBe(made);
    expect(ran.out).toContain("Count the TODOs \u202e é");
    const { header, tasks } = await parseExport(ran.out);
    expect(header.rootTaskId).toBe(taskId);
    expect(tasks.map((task) => task.events.length)).toEqual([11]);
  });

  it("--out writes the file whole and says so; an existing file is replaced only with --force", async () => {
    const ws = workspace();
    const taskId = await recordRun(ws.dir, "Count the TODOs", ws.script(READ_THEN_ANSWER), ["--db", ws.db]);
    const ran = await sema(ws.dir, ["export", taskId, "--out", "task.jsonl", "--db", ws.db]);
    expect(ran).toEqual({
      code: 0,
      out: `Exported task ${taskId} to task.jsonl: 1 task, 11 events, 0 blobs\n`,
      err: "",
    });
    const file = join(ws.dir, "task.jsonl");
    const written = readFileSync(file, "utf8");
    expect((await parseExport(written)).header.rootTaskId).toBe(taskId);

    const again = await sema(ws.dir, ["export", taskId, "--out", "task.jsonl", "--db", ws.db]);
    expect(again).toEqual({ code: 2, out: "", err: "sema: task.jsonl exists: pass --force to replace it\n" });
    expect(readFileSync(file, "utf8")).toBe(written);

    writeFileSync(file, "something else\n");
    const forced = await sema(ws.dir, ["export", taskId, "--out", "task.jsonl", "--force", "--db", ws.db]);
    expect(forced.code).toBe(0);
    expect((await parseExport(readFileSync(file, "utf8"))).header.rootTaskId).toBe(taskId);
    // No temporary file is left beside it.
    expect(readdirSync(ws.dir).filter((name) => name.includes("task.jsonl"))).toEqual(["task.jsonl"]);
  });

  it("--with-children adds the task's children after it", async () => {
    const ws = workspace();
    // The sample trip delegates once: a root and its child, principal acme.
    const { taskId } = await withSqlite(ws.db, (store) => recordTrip(store));
    const alone = await sema(ws.dir, ["export", taskId, "--db", ws.db]);
    expect((await parseExport(alone.out)).tasks).toHaveLength(1);
    const ran = await sema(ws.dir, ["export", taskId, "--with-children", "--db", ws.db]);
    expect(ran.code).toBe(0);
    const { tasks } = await parseExport(ran.out);
    expect(tasks.map((task) => task.line)).toEqual([
      expect.objectContaining({ taskId, principal: "acme" }),
      expect.objectContaining({ taskId: expect.stringMatching(`^${taskId}~`), parentTaskId: taskId }),
    ]);
  });

  it("refuses a malformed command line before the store is opened (exit 2), and an unknown task (exit 1), writing nothing", async () => {
    const ws = workspace();
    writeFileSync(join(ws.dir, "taken.jsonl"), "mine\n");
    for (const [args, message] of [
      [[], /^sema: usage: sema export <taskId>/],
      [["a", "b"], /^sema: usage: sema export <taskId>/],
      [["a", "--force"], /^sema: --force is for --out/],
      [["a", "--out", ""], /^sema: --out takes a file name/],
      [["a", "--out", "taken.jsonl"], /^sema: taken.jsonl exists: pass --force to replace it\n$/],
      [["a", "--with-children=yes"], /^sema: Option '--with-children' does not take an argument/],
    ] as const) {
      const ran = await sema(ws.dir, ["export", ...args, "--db", ws.db]);
      expect(ran.code, args.join(" ")).toBe(2);
      expect(ran.err).toMatch(message);
      expect(ran.out).toBe("");
    }
    expect(existsSync(ws.db)).toBe(false);
    await recordRun(ws.dir, "Count the TODOs", ws.script(READ_THEN_ANSWER), ["--db", ws.db]);
    const taskId = JSON.parse((await sema(ws.dir, ["tasks", "--json", "--db", ws.db])).out).taskId as string;
    const nowhere = await sema(ws.dir, ["export", taskId, "--out", "no-dir/task.jsonl", "--db", ws.db]);
    expect(nowhere.code).toBe(2);
    expect(nowhere.err).toMatch(/^sema: cannot write no-dir\/task.jsonl: ENOENT/);
    const unknown = await sema(ws.dir, ["export", "no-such-task", "--out", "new.jsonl", "--db", ws.db]);
    expect(unknown).toEqual({ code: 1, out: "", err: "sema: task no-such-task not found\n" });
    expect(readdirSync(ws.dir).sort()).toEqual(["notes.txt", "script-1.json", "taken.jsonl", "test.db"]);
    expect(readFileSync(join(ws.dir, "taken.jsonl"), "utf8")).toBe("mine\n");
  });
});
