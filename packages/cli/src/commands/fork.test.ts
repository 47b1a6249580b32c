// `sema fork` and `sema resume` of the fork, in process over a real SQLite file, on scripted models.
import type { ForkResult } from "@sema-agent/core/time-travel";
import { describe, expect, it } from "vitest";
import {
  READ_THEN_ANSWER,
  recordRun,
  sema,
  type Workspace,
  withSqlite,
  workspace,
} from "../test-support/time-travel.ts";

/** A completed task that read notes.txt and answered: seq 6 the first turn, 8 its tool result. */
async function recorded(ws: Workspace): Promise<string> {
  return recordRun(ws.dir, "Count the TODOs", ws.script(READ_THEN_ANSWER), ["--db", ws.db]);
}

async function forked(ws: Workspace, args: string[]): Promise<ForkResult> {
  const ran = await sema(ws.dir, ["fork", ...args, "--json", "--db", ws.db]);
  expect(ran.err).toBe("");
  expect(ran.code).toBe(0);
  return JSON.parse(ran.out) as ForkResult;
}

describe("sema fork", () => {
  it("forks at a seq, says how to run it on, and sema resume runs it on from there; the source is untouched", async () => {
    const ws = workspace();
    const source = await recorded(ws);
    const before = await withSqlite(ws.db, (store) => store.read(source));
    const ran = await sema(ws.dir, ["fork", source, "--at", "8", "--db", ws.db]);
    expect(ran.code).toBe(0);
    const fork = /^Task (\S+) forked from (\S+) at seq 8\n/.exec(ran.out);
    expect(fork?.[2]).toBe(source);
    const forkId = fork?.[1] ?? "";
    expect(ran.out).toContain(`Run it on with: sema resume ${forkId} --db ${ws.db}\n`);
    await withSqlite(ws.db, async (store) => {
      expect((await store.getTask(forkId)).summary).toMatchObject({
        status: "parked",
        parkedReason: "forked",
        forkedFrom: { taskId: source, seq: 8 },
      });
    });

    // The fork's transcript holds one assistant turn, so the script answers with its second.
    const resumed = await sema(ws.dir, ["resume", forkId, "--db", ws.db]);
    expect(resumed.code).toBe(0);
    expect(resumed.out).toContain("assistant: Two TODOs.");
    expect(resumed.out).not.toContain("assistant: Reading.");
    await withSqlite(ws.db, async (store) => {
      expect((await store.getTask(forkId)).summary.status).toBe("completed");
      const log = await store.read(forkId);
      expect(log.filter((e) => e.type === "model_turn")).toHaveLength(2);
      // The resume is in the log, as through the API: who resumed, and where the leg began.
      expect(log.some((e) => e.type === "resume_requested")).toBe(true);
      expect(await store.read(source)).toEqual(before);
    });
  });

  it("moves a cut inside a step back to its boundary, and says where", async () => {
    const ws = workspace();
    const source = await recorded(ws);
    const text = await sema(ws.dir, ["fork", source, "--at", "4", "--db", ws.db]);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(
      /^Task \S+ forked from \S+ at seq 3\n {2}seq 4 is inside a step: the fork ends at the step boundary before it, seq 3\n/,
    );
    const json = await forked(ws, [source, "--at", "4"]);
    expect(json).toMatchObject({ sourceTaskId: source, seq: 3, requestedSeq: 4, detachedChildren: [] });
  });

  it("--model: sema resume runs the fork on the model the fork names, not the one it was started with", async () => {
    const ws = workspace();
    const source = await recorded(ws);
    const other = ws.script([{ text: "unused" }, { text: "Counted by the other model." }]);
    const fork = await forked(ws, [source, "--at", "8", "--model", other]);
    await withSqlite(ws.db, async (store) => {
      const marker = (await store.read(fork.taskId)).find((e) => e.type === "task_forked");
      expect(marker).toMatchObject({ origin: "fork", model: other, source: { taskId: source, seq: 8 } });
    });
    const resumed = await sema(ws.dir, ["resume", fork.taskId, "--db", ws.db]);
    expect(resumed.code).toBe(0);
    expect(resumed.out).toContain("assistant: Counted by the other model.");
    // --model on the command line still wins over the fork's.
    const again = await forked(ws, [source, "--at", "8", "--model", other]);
    const third = ws.script([{ text: "unused" }, { text: "The flag's model." }]);
    const flagged = await sema(ws.dir, ["resume", again.taskId, "--model", third, "--db", ws.db]);
    expect(flagged.out).toContain("assistant: The flag's model.");
  });

  it("--input: the fork takes the new text in place of the person's input, and runs on with it", async () => {
    const ws = workspace();
    const source = await recorded(ws);
    // Seq 2 is the objective as the person sent it (its first human_input record).
    const fork = await forked(ws, [source, "--input", "2=Count the DONEs = the finished ones"]);
    expect(fork.seq).toBe(1);
    const resumed = await sema(ws.dir, ["resume", fork.taskId, "--db", ws.db]);
    expect(resumed.code).toBe(0);
    expect(resumed.out).toContain("assistant: Two TODOs.");
    await withSqlite(ws.db, async (store) => {
      const log = await store.read(fork.taskId);
      expect(log.find((e) => e.type === "task_forked")).toMatchObject({ replacedInput: { seq: 2 } });
      const message = log.find((e) => e.type === "user_message");
      expect(message?.type === "user_message" && message.content).toContain("Count the DONEs = the finished ones");
    });
  });

  it("--tool-result: the model is sent the new result in place of the recorded one", async () => {
    const ws = workspace();
    const source = await recorded(ws);
    const fork = await forked(ws, [source, "--tool-result", "call-1-1=TODO: a=b"]);
    expect(fork.seq).toBe(7);
    const resumed = await sema(ws.dir, ["resume", fork.taskId, "--db", ws.db]);
    expect(resumed.code).toBe(0);
    await withSqlite(ws.db, async (store) => {
      const log = await store.read(fork.taskId);
      expect(log.find((e) => e.type === "task_forked")).toMatchObject({
        replacedResult: { callId: "call-1-1", seq: 8 },
      });
      const results = log.filter((e) => e.type === "tool_result");
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ callId: "call-1-1", status: "ok", content: "TODO: a=b" });
      expect(log.filter((e) => e.type === "model_turn")).toHaveLength(2);
    });
  });

  it("refuses a malformed flag or an edit that does not fit the log (exit 2), writing nothing", async () => {
    const ws = workspace();
    const source = await recorded(ws);
    for (const [flags, message] of [
      [["--at", "0"], "--at takes a seq (a positive integer), got 0"],
      [["--at", "1e3"], "--at takes a seq (a positive integer), got 1e3"],
      [["--at", "2.0"], "--at takes a seq (a positive integer), got 2.0"],
      [["--at", "99"], "the fork point must be a seq from 1 to 11, got 99"],
      [["--input", "two=hi"], "--input takes a seq (a positive integer), got two"],
      [["--input", "2"], "--input takes <seq>=<text> (e.g. 7=Book the cheaper one), got 2"],
      [["--input", "=hi"], "--input takes <seq>=<text> (e.g. 7=Book the cheaper one), got =hi"],
      [["--input", "2= "], "--input 2=: the replacing text is empty"],
      [["--input", "6=hi"], "seq 6 is not a person's input (its first human_input record)"],
      [
        ["--tool-result", "call-1-1"],
        "--tool-result takes <callId>=<text> (e.g. call-1-1=Rain all week), got call-1-1",
      ],
      [["--tool-result", "call-9-9=x"], "no recorded result for tool call call-9-9"],
      [
        ["--input", "2=hi", "--tool-result", "call-1-1=x"],
        "a fork replaces an input or a tool result, not both: each sets the fork point",
      ],
      [["--model", "gpt-5"], "--model takes provider:model-id (e.g. anthropic:claude-sonnet-4-5), got gpt-5"],
    ] as const) {
      const ran = await sema(ws.dir, ["fork", source, ...flags, "--db", ws.db]);
      expect(ran.code, flags.join(" ")).toBe(2);
      expect(ran.err).toBe(`sema: ${message}\n`);
      expect(ran.out).toBe("");
    }
    const unknown = await sema(ws.dir, ["fork", "no-such-task", "--db", ws.db]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toBe("sema: task no-such-task not found\n");
    const usage = await sema(ws.dir, ["fork", "--db", ws.db]);
    expect(usage.code).toBe(2);
    expect(usage.err).toMatch(/^sema: usage: sema fork <taskId>/);
    const listed = await sema(ws.dir, ["tasks", "--json", "--db", ws.db]);
    expect(listed.out.trim().split("\n")).toHaveLength(1);
  });
});
