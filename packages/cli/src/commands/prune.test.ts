// `sema prune` and `sema stats` in process over real SQLite files.
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SqlitePushConfigStore } from "@sema-agent/server/sqlite-a2a-push";
import { describe, expect, it } from "vitest";
import { READ_THEN_ANSWER, recordRun, sema, withSqlite, workspace } from "../test-support/time-travel.ts";

describe("sema prune and sema stats", () => {
  it("stats measures the store; prune --dry-run lists a finished task, prune --archive removes it", async () => {
    const ws = workspace();
    const taskId = await recordRun(ws.dir, "Count the TODOs", ws.script(READ_THEN_ANSWER), ["--db", ws.db]);
    const measured = await sema(ws.dir, ["stats", "--json", "--db", ws.db]);
    expect(measured.code).toBe(0);
    expect(JSON.parse(measured.out)).toMatchObject({ tasks: { completed: 1 }, events: 11, largest: [{ taskId }] });

    const dry = await sema(ws.dir, ["prune", "--older-than", "0ms", "--dry-run", "--db", ws.db]);
    expect(dry.code).toBe(0);
    expect(dry.out).toContain(`would delete  ${taskId}  completed`);
    expect(dry.out).toContain("1 task(s) due; nothing changed (--dry-run)");

    const young = await sema(ws.dir, ["prune", "--older-than", "30d", "--db", ws.db]);
    expect(young.out).toContain("0 task(s) removed");

    const pushes = new SqlitePushConfigStore({ path: ws.db });
    await pushes.put({
      taskId,
      id: "hook",
      principal: "local",
      url: "https://example.com/hook",
      token: "t",
      createdAt: new Date().toISOString(),
      deliveredSeq: 0,
    });
    await pushes.close();
    const ran = await sema(ws.dir, ["prune", "--older-than", "0ms", "--archive", "kept", "--db", ws.db]);
    expect(ran.err).toBe("");
    expect(ran.out).toContain(`archived  ${taskId}  completed`);
    expect(readdirSync(join(ws.dir, "kept"))).toEqual([`${taskId}.jsonl`]);
    await withSqlite(ws.db, async (store) => {
      await expect(store.getTask(taskId)).rejects.toMatchObject({ code: "TaskNotFound" });
    });
    // Its A2A push configs went with it.
    const after = new SqlitePushConfigStore({ path: ws.db });
    expect(await after.list(taskId)).toEqual([]);
    await after.close();
    const back = await sema(ws.dir, ["import", join("kept", `${taskId}.jsonl`), "--db", ws.db]);
    expect(back.code).toBe(0);
  });

  it("takes the config's retention without flags, and refuses a bad age or status", async () => {
    const ws = workspace();
    await recordRun(ws.dir, "Count the TODOs", ws.script(READ_THEN_ANSWER), ["--db", ws.db]);
    expect((await sema(ws.dir, ["prune", "--db", ws.db])).code).toBe(2);
    expect((await sema(ws.dir, ["prune", "--older-than", "30 days", "--db", ws.db])).err).toContain("--older-than");
    expect((await sema(ws.dir, ["prune", "--older-than", "1d", "--status", "running", "--db", ws.db])).code).toBe(2);
    writeFileSync(
      join(ws.dir, "sema.config.json"),
      JSON.stringify({ agents: {}, retention: { default: { olderThan: "0ms" }, principals: { other: "keep" } } }),
    );
    const ran = await sema(ws.dir, ["prune", "--db", ws.db]);
    expect(ran.out).toContain("1 task(s) removed");
    writeFileSync(join(ws.dir, "sema.config.json"), JSON.stringify({ agents: {}, retention: { default: {} } }));
    const bad = await sema(ws.dir, ["prune", "--db", ws.db]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("retention");
  });
});
