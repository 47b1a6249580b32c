// `sema diff` in process over real SQLite files, on tasks recorded by `sema run` and forked by `sema fork`.
import { existsSync } from "node:fs";
import type { ForkResult, TaskDiff } from "@sema-agent/core/time-travel";
import { describe, expect, it } from "vitest";
import { copyTask, READ_THEN_ANSWER, recordRun, sema, type Workspace, workspace } from "../test-support/time-travel.ts";

/** What a terminal would act on (as terminal-safe.ts lists it). */
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

async function forked(ws: Workspace, args: string[]): Promise<string> {
  const ran = await sema(ws.dir, ["fork", ...args, "--json", "--db", ws.db]);
  expect(ran.code).toBe(0);
  return (JSON.parse(ran.out) as ForkResult).taskId;
}

describe("sema diff", () => {
  it("costs each side at the vendors' list prices when its turns name a priced model", async () => {
    const ws = workspace();
    const source = await recordRun(ws.dir, "Count the TODOs", ws.script(READ_THEN_ANSWER), ["--db", ws.db]);
    // The same log, as if a priced model had taken its turns (10 in / 5 out tokens each).
    const priced = await copyTask(ws.db, source, (event) =>
      event.type === "model_turn" ? { ...event, model: "gpt-5" } : event,
    );
    const ran = await sema(ws.dir, ["diff", source, priced, "--db", ws.db]);
    expect(ran.code).toBe(0);
    const lines = ran.out.split("\n");
    // The script's model has no list price: no cost rather than a wrong one.
    expect(lines[0]).toBe(`A ${source}: 5 steps, 20 in / 10 out tokens`);
    // 20 input tokens at $1.25 and 10 output at $10 per million.
    expect(lines[1]).toBe(`B ${priced}: 5 steps, 20 in / 10 out tokens, $${((20 * 1.25 + 10 * 10) / 1e6).toFixed(4)}`);
  });

  it("sets a task beside its fork with an edited tool result: the divergence marked, exit 1", async () => {
    const ws = workspace();
    const source = await recordRun(ws.dir, "Count the TODOs", ws.script(READ_THEN_ANSWER), ["--db", ws.db]);
    const fork = await forked(ws, [source, "--tool-result", "call-1-1=No TODOs here"]);
    // The fork runs on: the same script answers, from the edited result.
    expect((await sema(ws.dir, ["resume", fork, "--db", ws.db])).code).toBe(0);
    const ran = await sema(ws.dir, ["diff", source, fork, "--db", ws.db]);
    expect(ran.err).toBe("");
    expect(ran.code).toBe(1);
    const lines = ran.out.split("\n");
    expect(lines.slice(0, 5)).toEqual([
      `A ${source}: 5 steps, 20 in / 10 out tokens`,
      `B ${fork}: 5 steps, 20 in / 10 out tokens`,
      "2 steps in common",
      "  = input    user user: Count the TODOs",
      '  = model    Reading. — calls read_file({"path":"notes.txt"})',
    ]);
    expect(lines[5]).toMatch(/^> A tool {5}read_file\(\{"path":"notes.txt"\}\) ok: <untrusted-[0-9a-f]+ .*TODO: one/);
    expect(lines[6]).toBe('> B tool     read_file({"path":"notes.txt"}) ok: No TODOs here');
    expect(ran.out).toMatch(/\(> marks the first divergence\)\n$/);

    const json = await sema(ws.dir, ["diff", source, fork, "--json", "--db", ws.db]);
    expect(json.code).toBe(1);
    const diff = JSON.parse(json.out) as TaskDiff;
    expect(diff).toMatchObject({ identical: false, common: 2, a: { taskId: source }, b: { taskId: fork } });
    expect(diff.firstDivergence?.b).toMatchObject({ kind: "tool", text: expect.stringContaining("No TODOs here") });
  });

  it("finds a task identical to itself and to its untouched fork: exit 0", async () => {
    const ws = workspace();
    const source = await recordRun(ws.dir, "Count the TODOs", ws.script(READ_THEN_ANSWER), ["--db", ws.db]);
    const fork = await forked(ws, [source]);
    for (const other of [source, fork]) {
      const ran = await sema(ws.dir, ["diff", source, other, "--db", ws.db]);
      expect(ran.code).toBe(0);
      expect(ran.out).toContain("\nthe trajectories are identical\n");
      expect(ran.out).not.toMatch(/^>/m);
    }
    const json = await sema(ws.dir, ["diff", source, fork, "--json", "--db", ws.db]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toMatchObject({ identical: true, common: 5 });
  });

  it("prints the tasks' own text terminal-safe", async () => {
    const ws = workspace();
    // (A person's input loses its C0 controls on the way in; a bidi override is kept.)
    const a = await recordRun(ws.dir, "Count \u2066 TODOs", ws.script(READ_THEN_ANSWER), ["--db", ws.db]);
    const b = await recordRun(ws.dir, "Count \u202e TODOs", ws.script(READ_THEN_ANSWER), ["--db", ws.db]);
    const ran = await sema(ws.dir, ["diff", a, b, "--db", ws.db]);
    expect(ran.code).toBe(1);
    expect(ran.out).toContain("> A input    user user: Count \\u2066 TODOs\n");
    expect(ran.out).toContain("> B input    user user: Count \\u202e TODOs\n");
    expect(ran.out).not.toMatch(UNSAFE);
    const json = await sema(ws.dir, ["diff", a, b, "--json", "--db", ws.db]);
    expect(json.out).not.toMatch(UNSAFE);
    expect((JSON.parse(json.out) as TaskDiff).firstDivergence?.b?.text).toContain("Count \u202e TODOs");
  });

  it("exits 2 for trouble: a malformed command line (before the store is opened) or a task not found", async () => {
    const ws = workspace();
    for (const [args, message] of [
      [[], /^sema: usage: sema diff <taskA> <taskB>/],
      [["a"], /^sema: usage: sema diff <taskA> <taskB>/],
      [["a", "b", "c"], /^sema: usage: sema diff <taskA> <taskB>/],
      [["a", "b", "--principal", "x"], /^sema: Unknown option '--principal'/],
    ] as const) {
      const ran = await sema(ws.dir, ["diff", ...args, "--db", ws.db]);
      expect(ran.code, args.join(" ")).toBe(2);
      expect(ran.err).toMatch(message);
      expect(ran.out).toBe("");
    }
    expect(existsSync(ws.db)).toBe(false);
    const source = await recordRun(ws.dir, "Count the TODOs", ws.script(READ_THEN_ANSWER), ["--db", ws.db]);
    for (const args of [
      [source, "no-such-task"],
      ["no-such-task", source],
    ]) {
      const ran = await sema(ws.dir, ["diff", ...args, "--db", ws.db]);
      expect(ran).toEqual({ code: 2, out: "", err: "sema: task no-such-task not found\n" });
    }
  });
});
