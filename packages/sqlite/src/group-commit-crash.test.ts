// Crash semantics of group commit on a real file (issue 21): a real process, killed with SIGKILL
// in the middle of a coalesced batch — between one append's statements and the next, before the
// COMMIT, or wherever the parent's signal lands — never loses an acknowledged append, and leaves
// every task's log gapless with each append wholly there or wholly absent.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { make } from "@sema-agent/core/testing";
import { describe, expect, it } from "vitest";
import { SqliteStore } from "./sqlite-store.ts";
import { tempDb } from "./temp-dir.fixture.ts";

const fixture = fileURLToPath(new URL("./group-commit-crash.fixture.ts", import.meta.url));
const killHook = fileURLToPath(new URL("./writer-kill.fixture.ts", import.meta.url));
const TASKS = 20;

/**
 * Run the fixture until it dies; `killAfterAcks` makes the parent send SIGKILL once it has read
 * that many acknowledgements. Resolves with the acknowledged appends and the signal it died of.
 */
function runUntilKilled(
  path: string,
  writer: "main" | "thread",
  killAt: number,
  killAfterAcks?: number,
): Promise<{ acks: Map<string, number>; signal: string | null }> {
  return new Promise((resolve, reject) => {
    const preload = writer === "thread" ? ["--import", killHook] : [];
    const proc = spawn(
      process.execPath,
      ["--conditions=source", "--no-warnings", ...preload, fixture, path, `${TASKS}`, `${killAt}`, writer],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, SEMA_KILL_AT: `${killAt}` } },
    );
    // A child that does not die is a failure, not a hang.
    const deadline = setTimeout(() => proc.kill("SIGKILL"), 30_000);
    const acks = new Map<string, number>();
    let count = 0;
    let pending = "";
    let stderr = "";
    proc.stdout.on("data", (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        const [, taskId, k] = line.split(" ");
        if (taskId !== undefined) acks.set(taskId, Math.max(acks.get(taskId) ?? -1, Number(k)));
        if (++count === killAfterAcks) proc.kill("SIGKILL");
      }
    });
    proc.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    proc.on("error", reject);
    proc.on("exit", (code, signal) => {
      clearTimeout(deadline);
      if (signal === null) reject(new Error(`child exited ${code}: ${stderr}`));
      else resolve({ acks, signal });
    });
  });
}

/** Every task's log is `task_created` then whole appends of three notes `k:0 … k:2`, k = 0, 1, … */
async function checkLogs(path: string, acks: Map<string, number>): Promise<{ committed: number; unacked: number }> {
  const store = new SqliteStore({ path });
  let committed = 0;
  let unacked = 0;
  try {
    for (let i = 0; i < TASKS; i++) {
      const taskId = `t${i}`;
      const events = await store.read(taskId);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, j) => j + 1));
      const notes = events.flatMap((e) => (e.type === "engine_note" ? [e.text] : []));
      expect(notes.length % 3, `${taskId}: a part of an append`).toBe(0);
      const appends = notes.length / 3;
      expect(notes).toEqual(Array.from({ length: notes.length }, (_, j) => `${taskId}:${Math.floor(j / 3)}:${j % 3}`));
      const acked = (acks.get(taskId) ?? -1) + 1;
      // Acknowledged appends are all there; at most the one in flight is there unacknowledged.
      expect(appends, `${taskId}: acknowledged ${acked}`).toBeGreaterThanOrEqual(acked);
      expect(appends).toBeLessThanOrEqual(acked + 1);
      committed += appends;
      unacked += appends - acked;
    }
  } finally {
    await store.close();
  }
  return { committed, unacked };
}

async function freshFile(): Promise<string> {
  const path = tempDb();
  const store = new SqliteStore({ path });
  for (let i = 0; i < TASKS; i++) await store.createTask({ taskId: `t${i}`, created: make.created("p") });
  await store.close();
  return path;
}

for (const writer of ["main", "thread"] as const) {
  describe(`group commit, killed with SIGKILL mid-batch (SqliteStore file, writer ${writer})`, () => {
    // The n-th append's clock read (writer main) or event insert (writer thread) is inside the
    // n-th append of the run (20 appends a batch): 1 is the first of the first batch, 7 the
    // middle, 20 the last one's (the batch's other statements ran, no COMMIT), 21 the first of the
    // second batch (the first committed, its callers maybe not told).
    for (const killAt of [1, 7, 20, 21, 33, 58]) {
      it(`dies at append ${killAt}: acknowledged appends kept, each append whole or absent`, async () => {
        const path = await freshFile();
        const { acks, signal } = await runUntilKilled(path, writer, killAt);
        expect(signal).toBe("SIGKILL");
        const { committed } = await checkLogs(path, acks);
        // The fatal append's batch never committed (in a quiet run that is every append from the
        // first of its batch on: 20 a batch, unless the time budget split one).
        expect(committed).toBeLessThan(killAt);
        if (killAt > TASKS) expect(committed).toBeGreaterThan(0);
      });
    }

    for (const killAfterAcks of [1, 45, 300]) {
      it(`killed by the parent after ${killAfterAcks} acknowledgements: acknowledged appends kept, each whole or absent`, async () => {
        const path = await freshFile();
        const { acks, signal } = await runUntilKilled(path, writer, 0, killAfterAcks);
        expect(signal).toBe("SIGKILL");
        const { committed } = await checkLogs(path, acks);
        expect(committed).toBeGreaterThanOrEqual(killAfterAcks);
      });
    }
  });
}
