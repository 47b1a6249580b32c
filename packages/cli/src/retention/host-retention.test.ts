// The background retention of `sema serve` and `sema worker` deletes the pruned tasks' A2A push
// configs, and asks for the push config store only once a pass has deleted a task.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStore } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { MemoryPushConfigStore } from "@sema-agent/server/a2a";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { CliIo } from "../context.ts";
import { hostRetention } from "./host-retention.ts";

const dirs: string[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function hookOf(taskId: string) {
  return {
    taskId,
    id: "hook",
    principal: "p1",
    url: "https://example.com/hook",
    token: "t",
    createdAt: "2026-12-01T00:00:00.000Z",
    deliveredSeq: 0,
  };
}

describe("a host's background retention", () => {
  it("deletes the A2A push configs of the tasks it removed, and only theirs", async () => {
    vi.useFakeTimers({ now: Date.parse("2026-12-01T00:00:00.000Z"), toFake: ["setTimeout", "clearTimeout", "Date"] });
    const cwd = mkdtempSync(join(tmpdir(), "sema-host-retention-"));
    dirs.push(cwd);
    writeFileSync(
      join(cwd, "sema.config.json"),
      JSON.stringify({ agents: {}, retention: { default: { olderThan: "1h" }, every: "30m" } }),
    );
    const store = new MemoryStore();
    const [ended] = await store.createTask({ created: make.created("p1") });
    const endedId = ended?.taskId ?? "";
    await store.append(endedId, [{ type: "task_cancelled", v: 1 }], { expectedSeq: 1 });
    const [parked] = await store.createTask({ created: make.created("p1") });
    const parkedId = parked?.taskId ?? "";
    await store.append(parkedId, [make.legStarted("l1"), make.legEnded("l1", "parked:input")], { expectedSeq: 1 });
    const pushes = new MemoryPushConfigStore();
    await pushes.put(hookOf(endedId));
    await pushes.put(hookOf(parkedId));
    let asked = 0;
    const out: string[] = [];
    const io: CliIo = { stdout: { write: (text: string) => out.push(text) }, stderr: { write: () => 0 }, env: {}, cwd };
    const retention = await hostRetention(io, store, "sema worker", async () => {
      asked++;
      return pushes;
    });
    expect(retention).toBeDefined();
    // The first pass, 30 minutes in: nothing is due, and the push config store is never asked for.
    await vi.advanceTimersByTimeAsync(30 * 60_000);
    expect(asked).toBe(0);
    expect(await pushes.list(endedId)).toHaveLength(1);
    // An hour later the cancelled task is due: it goes, and so does its push config.
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    await expect(store.getTask(endedId)).rejects.toMatchObject({ code: "TaskNotFound" });
    expect(await pushes.list(endedId)).toEqual([]);
    expect(await pushes.list(parkedId)).toHaveLength(1);
    expect(asked).toBeGreaterThan(0);
    expect(out.join("")).toContain("sema worker: retention removed 1 finished task(s)");
    await retention?.stop();
  });
});
