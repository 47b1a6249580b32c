// People first in the SQLite writer (`WorkLane`): a person's write goes ahead of the routine
// writes queued before it, into the next batch; routine writes still progress under a stream of
// people's writes (the lanes take turns), so neither lane starves.
import { sendInput, startTask } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BatchWriter } from "./batch-writer.ts";
import { openDatabase } from "./connection.ts";
import { rollback } from "./schema.ts";
import { SqliteStore } from "./sqlite-store.ts";
import { tempDb } from "./temp-dir.fixture.ts";

const now = () => Date.parse("2026-12-01T12:00:00Z");

function writerOn(path: string, maxBatch: number) {
  const { db, statements } = openDatabase(path, 1000, now);
  const writer = new BatchWriter(
    { statements: () => statements, rollback: () => rollback(db), storeError: (error) => error },
    { windowMs: 0, maxBatch },
    now, // a clock that stands still: batches are cut by count only, whatever the machine's speed
  );
  return { db, writer };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("BatchWriter lanes", () => {
  it("runs a person's write ahead of the routine writes queued before it", async () => {
    const { db, writer } = writerOn(tempDb(), 256);
    try {
      const order: string[] = [];
      const writes = [1, 2, 3, 4, 5].map((n) => writer.submit(() => order.push(`routine ${n}`)));
      writes.push(writer.submit(() => order.push("person"), "person"));
      await Promise.all(writes);
      expect(order).toEqual(["person", "routine 1", "routine 2", "routine 3", "routine 4", "routine 5"]);
      expect(writer.commits).toBe(1);
    } finally {
      db.close();
    }
  });

  it("takes a person's write into the next batch, past a backlog several batches long", async () => {
    vi.useFakeTimers();
    const { db, writer } = writerOn(tempDb(), 4);
    try {
      const batchOf = new Map<string, number>();
      const routine = Array.from({ length: 12 }, (_, n) =>
        writer.submit(() => batchOf.set(`routine ${n}`, writer.commits)),
      );
      const person = writer.submit(() => batchOf.set("person", writer.commits), "person");
      await vi.runAllTimersAsync();
      await Promise.all([...routine, person]);
      // Batches of 4: the person's write is in the first, the last routine one in the fourth.
      expect(batchOf.get("person")).toBe(0);
      expect(batchOf.get("routine 11")).toBe(3);
    } finally {
      db.close();
    }
  });

  it("starves neither lane: under a stream of people's writes, routine ones take every other turn", async () => {
    vi.useFakeTimers();
    const { db, writer } = writerOn(tempDb(), 6);
    try {
      const order: string[] = [];
      const writes = [
        ...[0, 1, 2, 3, 4].map((n) => writer.submit(() => order.push(`r${n}`))),
        ...[0, 1, 2, 3, 4, 5, 6, 7].map((n) => writer.submit(() => order.push(`p${n}`), "person")),
      ];
      await vi.runAllTimersAsync();
      await Promise.all(writes);
      expect(order).toEqual(["p0", "r0", "p1", "r1", "p2", "r2", "p3", "r3", "p4", "r4", "p5", "p6", "p7"]);
    } finally {
      db.close();
    }
  });
});

describe("SqliteStore lanes", () => {
  it("commits a person's input, and a leg's append serving one, ahead of a backlog of routine appends", async () => {
    // Batches of 4: the 20 routine appends queued first need 5 of them.
    const store = new SqliteStore({ path: tempDb(), now, groupCommit: { maxBatch: 4 } });
    try {
      const ids = await Promise.all(Array.from({ length: 20 }, () => startTask(store, { objective: "Work" })));
      const steered = await startTask(store, { objective: "Take a steer" });
      const serving = await startTask(store, { objective: "Serve a person" });
      const seq = (await store.getTask(steered)).lastSeq;
      const settled: string[] = [];
      const routine = ids.map((id) =>
        store.append(id, [make.note("routine")], { expectedSeq: seq }).then(() => settled.push(id)),
      );
      // A leg's append that says it serves a person rides the person lane too.
      const served = store
        .append(serving, [make.note("serving")], { expectedSeq: seq, lane: "person" })
        .then(() => settled.push("serving"));
      const input = sendInput(store, steered, { text: "Stop and summarize" }).then(() => settled.push("steer"));
      await Promise.all([...routine, served, input]);
      expect(settled).toHaveLength(22);
      // In arrival order they would settle last; in the person lane they pass most of the backlog.
      expect(settled.indexOf("serving")).toBeLessThan(4);
      expect(settled.indexOf("steer")).toBeLessThan(12);
    } finally {
      await store.close();
    }
  });
});
