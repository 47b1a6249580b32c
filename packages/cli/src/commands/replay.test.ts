// `sema replay` in process over real SQLite files, on tasks recorded by `sema run` on scripted models.
import { existsSync, rmSync } from "node:fs";
import type { TaskEvent } from "@sema-agent/core";
import type { ReplayReport } from "@sema-agent/core/time-travel";
import { describe, expect, it } from "vitest";
import {
  copyTask,
  READ_THEN_ANSWER,
  recordRun,
  sema,
  type Turn,
  withSqlite,
  workspace,
} from "../test-support/time-travel.ts";

const WRITE: Turn[] = [
  { toolCalls: [{ name: "write_file", input: { path: "out.txt", content: "hello\n" } }] },
  { text: "Written." },
];

/** What a terminal would act on (as terminal-safe.ts lists it). */
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** The first model turn's recorded request digest replaced, as if the request had been another. */
function otherFirstRequest(part: "system" | "transcript"): (event: TaskEvent) => TaskEvent {
  let seen = false;
  return (event) => {
    if (event.type !== "model_turn" || event.request === undefined || seen) return event;
    seen = true;
    return { ...event, request: { ...event.request, digest: "0".repeat(64), [part]: "0".repeat(64) } };
  };
}

/** `sema run` that parks on the write's approval, `sema approve`, `sema resume`: the approval in the log. */
async function recordAsked(dir: string, script: string, db: string): Promise<string> {
  const ran = await sema(dir, ["run", "Write it", "--model", script, "--db", db]);
  const taskId = /Task (\S+) started/.exec(ran.out)?.[1];
  if (taskId === undefined) throw new Error(`no task started: ${ran.out}`);
  expect((await sema(dir, ["approve", taskId, "call-1-1", "--db", db])).code).toBe(0);
  const resumed = await sema(dir, ["resume", taskId, "--db", db]);
  expect(resumed.code).toBe(0);
  return taskId;
}

describe("sema replay", () => {
  it("replays a task sema run recorded: identical, exit 0, with no API key and no script file, the log untouched", async () => {
    const ws = workspace();
    const script = ws.script(READ_THEN_ANSWER);
    const taskId = await recordRun(ws.dir, "Count the TODOs", script, ["--db", ws.db]);
    // The model is never called: the script it ran on may be gone.
    rmSync(script.slice("script:".length));
    const before = await withSqlite(ws.db, (store) => store.read(taskId));
    const ran = await sema(ws.dir, ["replay", taskId, "--db", ws.db]);
    expect(ran).toEqual({
      code: 0,
      out: `replay of task ${taskId}: identical\n  turn 1 (seq 6): identical\n  turn 2 (seq 9): identical\n`,
      err: "",
    });
    const json = await sema(ws.dir, ["replay", taskId, "--json", "--db", ws.db]);
    expect(json.code).toBe(0);
    expect(json.out.split("\n")).toHaveLength(2);
    expect(JSON.parse(json.out) as ReplayReport).toEqual({
      taskId,
      outcome: "identical",
      recordedTurns: 2,
      turns: [
        { turn: 1, seq: 6, verdict: "identical" },
        { turn: 2, seq: 9, verdict: "identical" },
      ],
    });
    expect(await withSqlite(ws.db, (store) => store.read(taskId))).toEqual(before);
  });

  it("replays a task on a provider's model with no API key set (the model is never made)", async () => {
    const ws = workspace();
    const recorded = await recordRun(ws.dir, "Count the TODOs", ws.script(READ_THEN_ANSWER), ["--db", ws.db]);
    const taskId = await copyTask(ws.db, recorded, (event) =>
      event.type === "task_created" ? { ...event, model: "anthropic:claude-sonnet-4-5" } : event,
    );
    // Resuming it would need the key; replaying it does not.
    const ran = await sema(ws.dir, ["replay", taskId, "--db", ws.db], { env: {} });
    expect(ran.err).toBe("");
    expect(ran.code).toBe(0);
    expect(ran.out).toMatch(/^replay of task \S+: identical\n/);
  });

  it("says so on stderr when the task was started for another agent than sema run's", async () => {
    const ws = workspace();
    const recorded = await recordRun(ws.dir, "Count the TODOs", ws.script(READ_THEN_ANSWER), ["--db", ws.db]);
    const taskId = await copyTask(ws.db, recorded, (event) =>
      event.type === "task_created" ? { ...event, agent: "support\u202e" } : event,
    );
    const ran = await sema(ws.dir, ["replay", taskId, "--db", ws.db]);
    expect(ran.err).toBe(
      `sema: task ${taskId} was started for agent support\\u202e; sema replay replays it with the default agent of sema run\n`,
    );
    expect(ran.code).toBe(0);
  });

  it("a task run with --yes replays identical with --yes, and diverges without it (exit 1, with the diff)", async () => {
    const ws = workspace();
    const taskId = await recordRun(ws.dir, "Write it", ws.script(WRITE), ["--db", ws.db], ["--yes"]);
    const same = await sema(ws.dir, ["replay", taskId, "--yes", "--db", ws.db]);
    expect(same.code).toBe(0);
    expect(same.out).toMatch(/: identical\n/);
    // Without --yes the write waits for an approval the recording never had: the replay names it.
    const other = await sema(ws.dir, ["replay", taskId, "--db", ws.db]);
    expect(other.code).toBe(1);
    expect(other.err).toBe("");
    expect(other.out).toBe(
      [
        `replay of task ${taskId}: diverged`,
        "  turn 1 (seq 6): identical",
        "first divergence at turn 1 (seq 6):",
        "the replay asked a person to approve write_file (call-1-1); the recording ran it without asking",
        "The replay uses the agent sema run builds now, with the flags given here: replay a task with the flags it ran with (--yes).",
        "",
      ].join("\n"),
    );
    const json = await sema(ws.dir, ["replay", taskId, "--json", "--db", ws.db]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toMatchObject({ outcome: "diverged", divergence: { turn: 1, seq: 6, parts: [] } });
  });

  it("a task whose write a person approved diverges when replayed with --yes, which would not have asked", async () => {
    const ws = workspace();
    const taskId = await recordRun(ws.dir, "Write it", ws.script(WRITE), ["--db", ws.db], ["--yes"]);
    const looser = await sema(ws.dir, ["replay", taskId, "--db", ws.db]);
    expect(looser.code).toBe(1);
    // And the other way round: recorded asking (the approval in the log), replayed with --yes.
    const asked = await recordAsked(ws.dir, ws.script(WRITE), ws.db);
    const yes = await sema(ws.dir, ["replay", asked, "--yes", "--db", ws.db]);
    expect(yes.code).toBe(1);
    expect(yes.out).toContain(
      "the recording asked a person to approve write_file (call-1-1) before it ran; the replay did not ask",
    );
    expect((await sema(ws.dir, ["replay", asked, "--db", ws.db])).code).toBe(0);
  });

  it("a task recorded with other instructions diverges at its first turn, showing the instructions sent now", async () => {
    const ws = workspace();
    const recorded = await recordRun(ws.dir, "Count the TODOs", ws.script(READ_THEN_ANSWER), ["--db", ws.db]);
    const taskId = await copyTask(ws.db, recorded, otherFirstRequest("system"));
    const ran = await sema(ws.dir, ["replay", taskId, "--db", ws.db]);
    expect(ran.code).toBe(1);
    expect(ran.out).toContain(`replay of task ${taskId}: diverged\n  turn 1 (seq 6): different\n`);
    expect(ran.out).toContain("first divergence at turn 1 (seq 6):\n");
    expect(ran.out).toMatch(
      /\nsystem instructions differ \(recorded sha256:000000000000…, replayed sha256:[0-9a-f]{12}…\); the replay sent:\n {4}You are an agent/,
    );
    expect(ran.out).toContain("\n    You work in one directory, your working directory.");
  });

  it("turns recorded without a request digest: exit 0, and the text says they are unverified", async () => {
    const ws = workspace();
    const recorded = await recordRun(ws.dir, "Count the TODOs", ws.script(READ_THEN_ANSWER), ["--db", ws.db]);
    const taskId = await copyTask(ws.db, recorded, (event) => {
      if (event.type !== "model_turn") return event;
      const { request: _request, ...v1 } = event;
      return { ...v1, v: 1 } as TaskEvent;
    });
    const ran = await sema(ws.dir, ["replay", taskId, "--db", ws.db]);
    expect(ran.code).toBe(0);
    expect(ran.out).toBe(
      [
        `replay of task ${taskId}: unverified`,
        "  turn 1 (seq 6): unverified",
        "  turn 2 (seq 9): unverified",
        "2 of 2 turns were recorded without a digest of their request (model_turn v 1), so they were not compared: no difference was found, but those turns are unverified",
        "",
      ].join("\n"),
    );
    const json = await sema(ws.dir, ["replay", taskId, "--json", "--db", ws.db]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toMatchObject({ outcome: "unverified" });
  });

  it("prints the task's own text terminal-safe in a diff", async () => {
    const ws = workspace();
    const objective = "Count the TODOs \u202e now";
    const recorded = await recordRun(ws.dir, objective, ws.script(READ_THEN_ANSWER), ["--db", ws.db]);
    // The recording's first request and its user message both other than the replay's.
    const edit = otherFirstRequest("transcript");
    const taskId = await copyTask(ws.db, recorded, (event) =>
      edit(event.type === "user_message" ? { ...event, content: `${event.content} (edited)` } : event),
    );
    const ran = await sema(ws.dir, ["replay", taskId, "--db", ws.db]);
    expect(ran.code).toBe(1);
    expect(ran.out).toContain("transcript entry 1 of 1 differs (recorded: user message; replayed: user message)");
    expect(ran.out).toContain("\\u202e now (edited)");
    expect(ran.out).not.toMatch(UNSAFE);
    const json = await sema(ws.dir, ["replay", taskId, "--json", "--db", ws.db]);
    expect(json.out).not.toMatch(UNSAFE);
    expect((JSON.parse(json.out) as ReplayReport).divergence?.diff).toContain("\u202e now (edited)");
  });

  it("refuses a malformed command line before the store is opened (exit 2), and an unknown task (exit 1)", async () => {
    const ws = workspace();
    for (const [args, message] of [
      [[], /^sema: usage: sema replay <taskId>/],
      [["a", "b"], /^sema: usage: sema replay <taskId>/],
      [["a", "--at", "3"], /^sema: Unknown option '--at'/],
      [["a", "--yes=no"], /^sema: Option '--yes' does not take an argument/],
    ] as const) {
      const ran = await sema(ws.dir, ["replay", ...args, "--db", ws.db]);
      expect(ran.code, args.join(" ")).toBe(2);
      expect(ran.err).toMatch(message);
      expect(ran.out).toBe("");
    }
    expect(existsSync(ws.db)).toBe(false);
    const unknown = await sema(ws.dir, ["replay", "no-such-task", "--db", ws.db]);
    expect(unknown).toEqual({ code: 1, out: "", err: "sema: task no-such-task not found\n" });
  });
});
