// The sema command line, in process (main() with captured streams) over a real SQLite file.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { SqliteStore } from "@sema-agent/sqlite";
import { describe, expect, it } from "vitest";
import type { CliIo } from "./context.ts";
import { main } from "./main.ts";

interface Captured {
  io: CliIo;
  out: () => string;
  err: () => string;
}

function capture(cwd: string, env: Record<string, string> = {}, extra: Partial<CliIo> = {}): Captured {
  let out = "";
  let err = "";
  const io: CliIo = {
    stdout: { write: (t: string) => (out += t), isTTY: false },
    stderr: { write: (t: string) => (err += t) },
    env,
    cwd,
    ...extra,
  };
  return { io, out: () => out, err: () => err };
}

function workspace(): { dir: string; db: string; script: (turns: unknown[]) => string } {
  const dir = mkdtempSync(join(tmpdir(), "sema-cli-"));
  writeFileSync(join(dir, "notes.txt"), "TODO: one\nTODO: two\n");
  return {
    dir,
    db: join(dir, "test.db"),
    script: (turns) => {
      const path = join(dir, `script-${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(path, JSON.stringify({ turns }));
      return path;
    },
  };
}

/** Poll until `condition` holds (a real CLI run is being watched), failing after `timeoutMs`. */
async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The id `sema run` printed, once it has. */
async function startedTask(c: Captured): Promise<string> {
  await waitFor("the task to start", () => /Task (\S+) started/.test(c.out()));
  return /Task (\S+) started/.exec(c.out())?.[1] ?? "";
}

/** Whether the task's log in `db` holds an event of `type` yet. */
async function logHas(db: string, taskId: string, type: string): Promise<boolean> {
  const store = new SqliteStore({ path: db });
  try {
    return (await store.read(taskId)).some((event) => event.type === type);
  } finally {
    await store.close();
  }
}

describe("sema run / events / tasks", () => {
  it("runs a scripted task with the built-in tools and records it in the SQLite file", async () => {
    const ws = workspace();
    const script = ws.script([
      { text: "Reading.", toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] },
      { text: "Two TODOs." },
    ]);
    const c = capture(ws.dir);
    const code = await main(["run", "Count the TODOs", "--model", `script:${script}`, "--db", ws.db], c.io);
    expect(c.err()).toBe("");
    expect(code).toBe(0);
    expect(c.out()).toContain("assistant: Reading.");
    expect(c.out()).toContain("→ read_file");
    expect(c.out()).toContain("assistant: Two TODOs.");
    expect(c.out()).toContain("✓ completed");
    // Each turn's own tokens and time, then the leg's totals.
    expect(c.out()).toMatch(/· turn 1 · 15 tokens · \d+\.\ds\n/);
    expect(c.out()).toMatch(/· turn 2 · 15 tokens · \d+\.\ds\n/);
    expect(c.out()).toMatch(/· total · 2 turns · 30 tokens · \d+\.\ds\n$/);

    const t = capture(ws.dir);
    expect(await main(["tasks", "--json", "--db", ws.db], t.io)).toBe(0);
    const [line] = t.out().trim().split("\n");
    const task = JSON.parse(line ?? "{}") as { taskId: string; status: string; objective: string };
    expect(task).toMatchObject({ status: "completed", objective: "Count the TODOs" });

    const e = capture(ws.dir);
    expect(await main(["events", task.taskId, "--json", "--db", ws.db], e.io)).toBe(0);
    const events = e
      .out()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { seq: number; type: string; at: string });
    expect(events.map((ev) => ev.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events[0]).toMatchObject({ seq: 1, type: "task_created", taskId: task.taskId, model: `script:${script}` });
    const store = new SqliteStore({ path: ws.db });
    expect(await store.read(task.taskId)).toEqual(events);
    await store.close();
  });

  it("a steer from another process reaches the running leg at its next step boundary", async () => {
    const ws = workspace();
    const script = ws.script([
      { text: "Working slowly.", toolCalls: [{ name: "list_dir", input: {} }], delayMs: 10 },
      { text: "Still working.", delayMs: 1500 },
      { text: "Adjusted." },
    ]);
    const c = capture(ws.dir);
    const running = main(["run", "Work", "--model", `script:${script}`, "--db", ws.db], c.io);
    // Wait until the task exists and its first step is logged (the second model call is next, and
    // slow), then steer from "another terminal".
    const taskId = await startedTask(c);
    await waitFor("the first tool result", () => logHas(ws.db, taskId, "tool_result"));
    const s = capture(ws.dir);
    expect(await main(["steer", taskId, "Please", "hurry", "--db", ws.db], s.io)).toBe(0);
    expect(s.out()).toMatch(/^input \S+: received\n$/);
    expect(await running).toBe(0);
    expect(c.out()).toContain("» [The user sent the message below while you were working.");
    expect(c.out()).toContain("» Please hurry");
    expect(c.out()).toContain("assistant: Adjusted.");
  });

  it("a script that runs out fails the task with a clear error, and resume reuses the recorded model", async () => {
    const ws = workspace();
    const script = ws.script([{ toolCalls: [{ name: "list_dir", input: {} }] }]);
    const c = capture(ws.dir);
    expect(await main(["run", "Do it", "--model", `script:${script}`, "--db", ws.db], c.io)).toBe(1);
    expect(c.err()).toMatch(/failed: the script has 1 turn\(s\) and turn 2 was requested/);
  });

  it("resume refuses --attach: the objective is recorded already, nothing is silently dropped", async () => {
    const ws = workspace();
    const c = capture(ws.dir);
    expect(await main(["resume", "some-task", "--attach", "x.png", "--db", ws.db], c.io)).toBe(2);
    expect(c.err()).toMatch(/Unknown option '--attach'/);
  });

  it("Ctrl-C parks the task and says how to resume it; resume finishes it", async () => {
    const ws = workspace();
    const script = ws.script([{ text: "Long think.", delayMs: 5000 }, { text: "never" }]);
    const controller = new AbortController();
    const c = capture(ws.dir, {}, { interrupt: controller.signal });
    const running = main(["run", "Think", "--model", `script:${script}`, "--db", ws.db], c.io);
    // Ctrl-C once the leg is under way (its model call takes 5 s).
    const taskId = await startedTask(c);
    await waitFor("the leg to start", () => logHas(ws.db, taskId, "leg_started"));
    controller.abort();
    expect(await running).toBe(130);
    expect(c.out()).toContain(
      `Task ${taskId} is parked (interrupt). Resume it with: sema resume ${taskId} --db ${ws.db}`,
    );

    writeFileSync(script, JSON.stringify({ turns: [{ text: "Done quickly." }] }));
    const r = capture(ws.dir);
    expect(await main(["resume", taskId, "--db", ws.db], r.io)).toBe(0);
    expect(r.out().split("\n")[0]).toBe(`Task ${taskId} resumed (model script:${script}, store ${ws.db})`);
    expect(r.out()).toContain("assistant: Done quickly.");
  });
});

describe("sema run: typing and cancelling", () => {
  it("a line typed while the task works is a steer", async () => {
    const ws = workspace();
    const script = ws.script([
      { text: "Thinking.", toolCalls: [{ name: "list_dir", input: {} }], delayMs: 200 },
      { text: "Took your note." },
    ]);
    const stdin = new PassThrough();
    const c = capture(ws.dir, {}, { stdin });
    const running = main(["run", "Work", "--model", `script:${script}`, "--db", ws.db, "--stdin-steers"], c.io);
    // Typed once the leg is under way, while its first model call (200 ms) runs.
    const taskId = await startedTask(c);
    await waitFor("the leg to start", () => logHas(ws.db, taskId, "leg_started"));
    stdin.write("mind the tests\n");
    expect(await running).toBe(0);
    expect(c.out()).toContain("» mind the tests");
    expect(c.out()).toContain("assistant: Took your note.");
  });

  it("sema cancel from another terminal stops a running task", async () => {
    const ws = workspace();
    const script = ws.script([{ text: "Slow.", delayMs: 5000 }]);
    const c = capture(ws.dir);
    const running = main(["run", "Work", "--model", `script:${script}`, "--db", ws.db], c.io);
    const taskId = await startedTask(c);
    const k = capture(ws.dir);
    expect(await main(["cancel", taskId, "--reason", "changed my mind", "--db", ws.db], k.io)).toBe(0);
    expect(k.out()).toBe(`Task ${taskId} cancelled.\n`);
    expect(await running).toBe(1);
    expect(c.err()).toContain(`Task ${taskId} is cancelled.`);
  });
});

describe("approvals at the terminal", () => {
  const writeTurns = [
    { toolCalls: [{ name: "write_file", input: { path: "out.txt", content: "hello\n" } }] },
    { text: "Written." },
  ];

  it("asks the person at the terminal, then goes on", async () => {
    const ws = workspace();
    const questions: string[] = [];
    const c = capture(
      ws.dir,
      {},
      {
        prompt: async (q) => {
          questions.push(q);
          return "y";
        },
      },
    );
    expect(await main(["run", "Write it", "--model", `script:${ws.script(writeTurns)}`, "--db", ws.db], c.io)).toBe(0);
    expect(c.out()).toContain("? write_file wants to run (call call-1-1, digest ");
    expect(c.out()).toContain('"path": "out.txt"');
    expect(questions).toHaveLength(1);
    expect(readFileSync(join(ws.dir, "out.txt"), "utf8")).toBe("hello\n");
    expect(c.out()).toContain("assistant: Written.");
  });

  it("without a person, parks and says how to decide from any terminal; sema approve then resume finishes", async () => {
    const ws = workspace();
    const script = ws.script(writeTurns);
    const c = capture(ws.dir);
    expect(await main(["run", "Write it", "--model", `script:${script}`, "--db", ws.db], c.io)).toBe(3); // parked: waiting for approval
    const taskId = /Task (\S+) started/.exec(c.out())?.[1] ?? "";
    expect(c.out()).toContain(`Decide with: sema approve ${taskId} call-1-1 --db ${ws.db}`);
    expect(c.out()).toContain(`Task ${taskId} is parked (approval).`);
    const a = capture(ws.dir);
    expect(await main(["approve", taskId, "call-1-1", "--db", ws.db], a.io)).toBe(0);
    expect(a.out()).toContain("Approved call call-1-1.");
    const r = capture(ws.dir);
    expect(await main(["resume", taskId, "--db", ws.db], r.io)).toBe(0);
    expect(readFileSync(join(ws.dir, "out.txt"), "utf8")).toBe("hello\n");
  });

  it("sema cancel refuses a task that has ended, as the API and the library do", async () => {
    const ws = workspace();
    const c = capture(ws.dir);
    expect(await main(["run", "Say hi", "--model", `script:${ws.script([{ text: "hi" }])}`, "--db", ws.db], c.io)).toBe(
      0,
    );
    const taskId = /Task (\S+) started/.exec(c.out())?.[1] ?? "";
    const k = capture(ws.dir);
    expect(await main(["cancel", taskId, "--db", ws.db], k.io)).toBe(1);
    expect(k.err()).toBe(`sema: task ${taskId} is completed\n`);
    const store = new SqliteStore({ path: ws.db });
    expect((await store.getTask(taskId)).summary.status).toBe("completed");
    await store.close();
  });

  it("sema approve on a cancelled task says so and exits 1, recording nothing", async () => {
    const ws = workspace();
    const c = capture(ws.dir);
    expect(await main(["run", "Write it", "--model", `script:${ws.script(writeTurns)}`, "--db", ws.db], c.io)).toBe(3);
    const taskId = /Task (\S+) started/.exec(c.out())?.[1] ?? "";
    expect(await main(["cancel", taskId, "--db", ws.db], capture(ws.dir).io)).toBe(0);
    const a = capture(ws.dir);
    expect(await main(["approve", taskId, "call-1-1", "--db", ws.db], a.io)).toBe(1);
    expect(a.err()).toBe(`sema: task ${taskId} is cancelled\n`);
    const store = new SqliteStore({ path: ws.db });
    expect((await store.read(taskId)).some((e) => e.type === "approval_decided")).toBe(false);
    await store.close();
  });

  it("a denial is told to the model; --yes approves writes up front", async () => {
    const ws = workspace();
    const c = capture(ws.dir, {}, { prompt: async () => "n" });
    expect(await main(["run", "Write it", "--model", `script:${ws.script(writeTurns)}`, "--db", ws.db], c.io)).toBe(0);
    expect(c.out()).toContain("← write_file denied: The call was denied by");
    const y = capture(ws.dir);
    expect(
      await main(["run", "Write it", "--yes", "--model", `script:${ws.script(writeTurns)}`, "--db", ws.db], y.io),
    ).toBe(0);
    expect(y.out()).not.toContain("wants to run");
    expect(readFileSync(join(ws.dir, "out.txt"), "utf8")).toBe("hello\n");
  });
});

describe("sema demo", () => {
  it("runs offline: a labelled steer, an interrupt, a resume, an approval, the exact frames", async () => {
    const c = capture(tmpdir());
    expect(await main(["demo"], c.io)).toBe(0);
    const out = c.out();
    for (const expected of [
      "‖ parked (interrupt)",
      '[from "alice@example.com"]',
      "? write_file wants to run",
      "approved",
      "✓ completed",
      "[nextTurn]\n  │ Then write a one-line summary to summary.txt.",
    ]) {
      expect(out).toContain(expected);
    }
  });
});

describe("sema errors", () => {
  it("a missing key, an unknown provider or no model is one line and exit 2", async () => {
    const ws = workspace();
    for (const [args, message] of [
      [["run", "x", "--model", "anthropic:claude-sonnet-4-5"], /ANTHROPIC_API_KEY/],
      [["run", "x", "--model", "nosuch:model"], /nosuch/],
      [["run", "x", "--model", "anthropic/claude-sonnet-4-5"], /did you mean "anthropic:claude-sonnet-4-5"\?$/m],
      [["run", "x"], /no model: pass --model/],
      [["run", "x", "--bogus"], /bogus/],
      [["frobnicate"], /unknown command "frobnicate"/],
      [["worker", "--max-per-principal", "0", "--model", "script:x.json"], /--max-per-principal must be at least 1/],
      [
        ["serve", "--max-per-principal", "two", "--model", "script:x.json"],
        /--max-per-principal must be a non-negative/,
      ],
    ] as const) {
      const c = capture(ws.dir);
      expect(await main([...args, "--db", ws.db], c.io), args.join(" ")).toBe(2);
      expect(c.err()).toMatch(message);
      expect(c.err().trim().split("\n")[0]).toMatch(message);
    }
  });

  it("sema serve and sema worker check the config at start: the message, exit 2, no store opened", async () => {
    const ws = workspace();
    const script = ws.script([{ text: "hi" }]);
    writeFileSync(
      join(ws.dir, "sema.config.json"),
      JSON.stringify({ agents: { a: { model: `script:${script}`, maxTurn: 3 } } }),
    );
    for (const args of [["serve", "--port", "0"], ["worker"]]) {
      const c = capture(ws.dir);
      expect(await main([...args, "--db", ws.db], c.io), args.join(" ")).toBe(2);
      expect(c.err().trim().split("\n")[0]).toBe(
        'sema: sema.config.json: agents.a has unknown key "maxTurn" (did you mean "maxTurns"?): remove it or fix the spelling',
      );
      expect(c.out()).toBe("");
      expect(existsSync(ws.db)).toBe(false);
    }
  });

  it("<command> --help prints the usage, whatever the command", async () => {
    const ws = workspace();
    for (const command of ["worker", "serve", "steer", "token"]) {
      const c = capture(ws.dir);
      expect(await main([command, "--help"], c.io), command).toBe(0);
      expect(c.out()).toMatch(/^Usage: sema <command>/);
      expect(c.out()).toContain("worker [--concurrency N]");
    }
  });

  it("steering an unknown task is a clear error", async () => {
    const ws = workspace();
    const c = capture(ws.dir);
    expect(await main(["steer", "no-such-task", "hi", "--db", ws.db], c.io)).toBe(1);
    expect(c.err()).toBe("sema: task no-such-task not found\n");
  });
});

describe("the bin", () => {
  const bin = new URL("../bin/sema.js", import.meta.url).pathname;
  it("refuses an old Node with one line naming the version it needs", () => {
    let systemNode = "";
    try {
      systemNode = execFileSync("/usr/bin/env", ["-i", "PATH=/usr/local/bin:/usr/bin:/bin", "node", "--version"], {
        encoding: "utf8",
      }).trim();
    } catch {
      return; // no system node besides the pinned one
    }
    const [major = 0, minor = 0] = systemNode.replace(/^v/, "").split(".").map(Number);
    if (major > 22 || (major === 22 && minor >= 13)) return; // the system Node is new enough: nothing to refuse
    const result = spawnSync("/usr/bin/env", ["-i", "PATH=/usr/local/bin:/usr/bin:/bin", "node", bin, "--help"], {
      encoding: "utf8",
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(`sema needs Node.js >= 22.13 (this is ${systemNode.replace(/^v/, "")}).\n`);
    expect(readFileSync(bin, "utf8")).toContain("process.versions.node");
  });
});
