/**
 * `createAgent` handles in two processes on one SQLite file: the handle holds no task state, so
 * what one process records (a follow-up, an approval) the other continues from the file alone.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { TaskStatus } from "@sema-agent/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chatAgent, deployAgent } from "./agent-handles.fixture.ts";
import { SqliteStore } from "./sqlite-store.ts";
import { tempDb } from "./temp-dir.fixture.ts";

const fixture = fileURLToPath(new URL("./agent-process.fixture.ts", import.meta.url));

/** The writer of the stores opened in the current block, the other process's too. */
let writer: "main" | "thread" = "main";

/** Run the fixture in a child Node process; resolves with its stdout's JSON line when it exits 0. */
function other(...args: string[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ["--conditions=source", "--no-warnings", fixture, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, SEMA_TEST_WRITER: writer },
    });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    proc.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    proc.on("error", reject);
    proc.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(stdout.trim())) : reject(new Error(`child exited ${code}: ${stderr}`)),
    );
  });
}

/** Poll this process's store until the task has `status`, failing after a deadline. */
async function statusBecomes(store: SqliteStore, taskId: string, status: TaskStatus): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if ((await store.getTask(taskId)).summary.status === status) return;
    if (Date.now() > deadline) throw new Error(`task ${taskId} did not become ${status} in time`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const open: SqliteStore[] = [];
function store(path: string): SqliteStore {
  const opened = new SqliteStore({ path, writer });
  open.push(opened);
  return opened;
}
afterEach(async () => {
  for (const opened of open.splice(0)) await opened.close();
});

for (const kind of ["main", "thread"] as const) {
  describe(`createAgent across two processes on one SQLite file (writer ${kind})`, () => {
    beforeEach(() => {
      writer = kind;
    });

    it("send from one process, continue from the other (both ways)", async () => {
      const path = tempDb();
      const here = chatAgent(store(path));
      const first = await here.run("Capital of France?");
      expect(first).toMatchObject({ status: "completed", text: "Paris." });

      // The other process sends the follow-up; this one continues the conversation.
      expect(await other("send", path, first.taskId, "And its population?")).toMatchObject({ delivery: "parked" });
      const second = await here.continue(first.taskId);
      expect(second).toMatchObject({ status: "completed", text: "About 2.1 million." });

      // This process sends; the other continues, and this one sees it through the file.
      const again = await chatAgent(store(path)).run("Capital of France?");
      await here.send(again.taskId, "And its population?");
      const running = other("continue-chat", path, again.taskId);
      await statusBecomes(open[0] as SqliteStore, again.taskId, "completed");
      expect(await running).toEqual({ status: "completed", text: "About 2.1 million." });
      expect((await here.continue(again.taskId)).steps.map((s) => s.text)).toEqual(["Paris.", "About 2.1 million."]);
    });

    it("approve from one process; the tool runs once, in the other", async () => {
      const path = tempDb();
      const { agent: here, runs } = deployAgent(store(path));
      const parked = await here.run("Deploy the api");
      expect(parked.parked?.reason).toBe("approval");
      const [pending] = parked.parked?.approvals ?? [];
      await here.approve(parked.taskId, pending?.callId ?? "", { actor: { id: "ann", verified: true } });

      const continued = other("continue-deploy", path, parked.taskId);
      await statusBecomes(open[0] as SqliteStore, parked.taskId, "completed");
      expect(await continued).toEqual({ status: "completed", text: "Deployed.", runs: ["api"] });
      expect(runs).toEqual([]);
      const log = await here.store.read(parked.taskId);
      expect(log.filter((e) => e.type === "tool_call_started")).toHaveLength(1);
      expect(log.filter((e) => e.type === "tool_result")).toMatchObject([{ status: "ok", content: "deployed api" }]);
      // Nothing is left for this process to run.
      expect(await here.continue(parked.taskId)).toMatchObject({ status: "completed", text: "Deployed." });
      expect(runs).toEqual([]);
    });
  });
}
