// The fault-injection sweep of crash-recovery.test.ts on a group-committing SqliteStore file: a
// host dies at every append of a leg, before the fatal append commits or right after it, while
// every other such leg appends in the same batches; a fresh store on the file (a restarted
// process) resumes each task. Nothing acknowledged is lost, nothing non-idempotent runs twice,
// every tool call has one result, and every task ends with the undisturbed answer.
import { fold, runLeg, type StoredEvent, startTask } from "@sema-agent/core";
import { dyingStore, lookupTool, noteTool, ScriptedModel, SimulatedDeath } from "@sema-agent/core/testing";
import { describe, expect, it } from "vitest";
import { SqliteStore } from "./sqlite-store.ts";
import { tempDb } from "./temp-dir.fixture.ts";

const script = () =>
  new ScriptedModel(
    [
      {
        text: "Looking.",
        toolCalls: [
          { name: "lookup", input: { key: "a" } },
          { name: "note", input: { text: "n1" } },
        ],
      },
      { toolCalls: [{ name: "lookup", input: { key: "b" } }] },
      { toolCalls: [{ name: "note", input: { text: "n2" } }] },
      { text: "All done." },
    ],
    { mode: "by-transcript" },
  );

function checkLog(events: StoredEvent[], label: string): void {
  expect(
    events.map((e) => e.seq),
    label,
  ).toEqual(events.map((_, i) => i + 1));
  const calls = events.flatMap((e) => (e.type === "model_turn" ? e.toolCalls.map((c) => c.callId) : []));
  const results = events.flatMap((e) => (e.type === "tool_result" ? [e.callId] : []));
  expect([...results].sort(), label).toEqual([...calls].sort());
}

describe("fault injection with group commit (SqliteStore file)", () => {
  it("a host killed at any append, before or after it commits, amid other legs' batches: resumed whole", async () => {
    const path = tempDb();
    let clock = Date.parse("2026-12-01T00:00:00Z");
    const now = () => clock;
    const first = new SqliteStore({ path, now });
    // The undisturbed run gives the number of appends a leg makes.
    let appends = 0;
    const counted = await startTask(first, { objective: "count" });
    const counting = dyingStore(first, { appendsBeforeDeath: Number.MAX_SAFE_INTEGER, when: "before" });
    const countingStore = {
      ...counting,
      append: (...args: Parameters<typeof counting.append>) => {
        appends++;
        return counting.append(...args);
      },
    };
    const tools = () => {
      const notes = noteTool();
      return { notes, list: [lookupTool, notes.note] };
    };
    const reference = tools();
    expect(
      await runLeg({ store: countingStore, agent: { model: script(), tools: reference.list } }, counted),
    ).toMatchObject({ status: "completed", result: "All done." });
    expect(appends).toBeGreaterThan(5);

    // Every cut at once, so their legs' appends coalesce.
    const cuts = (["before", "after"] as const).flatMap((when) =>
      Array.from({ length: appends + 1 }, (_, n) => ({ when, n })),
    );
    const runs = await Promise.all(
      cuts.map(async ({ when, n }) => {
        const taskId = await startTask(first, { objective: `cut ${n} ${when}` });
        const world = tools();
        const dying = dyingStore(first, { appendsBeforeDeath: n, when });
        try {
          await runLeg(
            { store: dying, agent: { model: script(), tools: world.list }, holder: { id: "dead-host" } },
            taskId,
          );
        } catch (error) {
          expect(error).toBeInstanceOf(SimulatedDeath);
        }
        return { taskId, world, label: `death at append ${n} (${when})` };
      }),
    );
    // The cut legs really shared transactions (207 writes in 28 commits when measured).
    expect(first.writeStats.commits * 3).toBeLessThan(first.writeStats.writes);
    const before = new Map<string, StoredEvent[]>();
    for (const { taskId } of runs) before.set(taskId, await first.read(taskId));
    await first.close();

    // The restarted process, once the dead host's leases have expired.
    clock += 10 * 60_000;
    const second = new SqliteStore({ path, now });
    try {
      await Promise.all(
        runs.map(async ({ taskId, world, label }) => {
          const outcome = await runLeg(
            { store: second, agent: { model: script(), tools: world.list }, holder: { id: "new-host" } },
            taskId,
          );
          expect(outcome, label).toMatchObject({ status: "completed", result: "All done." });
          const after = await second.read(taskId);
          const earlier = before.get(taskId) ?? [];
          expect(after.slice(0, earlier.length), label).toEqual(earlier);
          checkLog(after, label);
          for (const [text, times] of Object.entries(world.notes.runs)) expect(times, `${label}: ${text}`).toBe(1);
          expect(fold(after).openToolCalls, label).toEqual([]);
        }),
      );
    } finally {
      await second.close();
    }
  });
});
