// A task recorded on PostgreSQL, exported, imported into a fresh SQLite file and replayed there:
// every model request identical (docs/guide/time-travel.md, "Export and import"). The two stores
// write the same events through different code (JSONB rows and a SQL summary against SQLite
// text rows), so this is where a store that changed what it gives back would show.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PostgresStore } from "@sema-agent/postgres";
import { SqliteStore } from "@sema-agent/sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { recordTrip } from "../../core/src/testing/sample-trip.ts";
import { exportTask, importTask, replayTask } from "../../core/src/time-travel/index.ts";
import { dropSchema, freshSchema, POSTGRES_URL, skip } from "../../postgres/src/test-server.fixture.ts";

describe.skipIf(skip)("a task recorded on PostgreSQL", () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it("replays identically from a fresh SQLite file after export and import", async () => {
    const schema = freshSchema();
    cleanup.push(() => dropSchema(schema));
    const production = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
    cleanup.push(() => production.close());
    const { taskId, agent } = await recordTrip(production);
    const file = await exportTask(production, taskId, { withChildren: true });

    const dir = mkdtempSync(join(tmpdir(), "sema-cross-store-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const laptop = new SqliteStore({ path: join(dir, "laptop.db") });
    cleanup.push(() => laptop.close());
    const imported = await importTask(laptop, file, { principal: "me" });
    expect(imported.tasks).toHaveLength(2);

    const report = await replayTask(laptop, imported.taskId, { agent });
    expect(report.divergence).toBeUndefined();
    expect(report).toMatchObject({ outcome: "identical", recordedTurns: 4 });
    // Exported again, the laptop's copy is the same events (bodies, not ids or times), plus the
    // import's own marker at the end of each task.
    const bodies = (text: string) =>
      text
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as { kind: string; event?: { [key: string]: unknown } })
        .flatMap((line) => {
          if (line.kind !== "event" || line.event === undefined) return [];
          const { taskId: _t, seq: _s, at: _a, principal: _p, parentTaskId: _parent, ...body } = line.event;
          return body.type === "task_forked" || body.type === "child_task" ? [body.type] : [JSON.stringify(body)];
        });
    const exported = bodies(file);
    const reexported = bodies(await exportTask(laptop, imported.taskId, { withChildren: true }));
    expect(reexported.filter((b) => b !== "task_forked")).toEqual(exported);
    expect(reexported.filter((b) => b === "task_forked")).toHaveLength(2);
  });
});
