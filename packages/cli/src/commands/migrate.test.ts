// `sema migrate` in process between two SQLite files.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { READ_THEN_ANSWER, recordRun, sema, withSqlite, workspace } from "../test-support/time-travel.ts";

describe("sema migrate", () => {
  it("copies a store's tasks to another file, and a run again finds them there", async () => {
    const ws = workspace();
    const taskId = await recordRun(ws.dir, "Count the TODOs", ws.script(READ_THEN_ANSWER), ["--db", ws.db]);
    const target = join(ws.dir, "copy.db");
    const ran = await sema(ws.dir, ["migrate", "--from", ws.db, "--to", target]);
    expect(ran.err).toBe("");
    expect(ran.code).toBe(0);
    expect(ran.out).toContain("1 task(s) copied, 0 already there, 0 refused, 0 mismatched");
    const source = await withSqlite(ws.db, (store) => store.read(taskId));
    expect(await withSqlite(target, (store) => store.read(taskId))).toEqual(source);
    const again = await sema(ws.dir, ["migrate", "--from", ws.db, "--to", target, "--json"]);
    expect(JSON.parse(again.out)).toMatchObject({ copied: [], present: [taskId] });
    expect((await sema(ws.dir, ["migrate", "--from", ws.db])).code).toBe(2);
    expect((await sema(ws.dir, ["migrate", "--from", ws.db, "--to", target, "--since", "soon"])).code).toBe(2);
  });
});
