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

describe("BatchWriter attended lane", () => {
  it("runs an attended write before every person and routine write queued", async () => {
    vi.useFakeTimers();
    const { db, writer } = writerOn(tempDb(), 4);
    try {
      const order: string[] = [];
      const writes = [
        ...[0, 1, 2].map((n) => writer.submit(() => order.push(`r${n}`))),
        ...[0, 1, 2, 3, 4].map((n) => writer.submit(() => order.push(`p${n}`), "person")),
        writer.submit(() => order.push("a0"), "attended"),
      ];
      await vi.runAllTimersAsync();
      writes.push(writer.submit(() => order.push("a1"), "attended"));
      await vi.runAllTimersAsync();
      await Promise.all(writes);
      expect(order.slice(0, 5)).toEqual(["a0", "p0", "r0", "p1", "r1"]);
      expect(order).toContain("a1");
    } finally {
      db.close();
    }
  });

  it("commits an attended write in a batch of its own before the tick ends, the rest after", async () => {
    const { db, writer } = writerOn(tempDb(), 256);
    try {
      const order: string[] = [];
      // Queued before any write: a flush at the end of the tick comes after it.
      const tickEnded = new Promise<void>((resolve) => setImmediate(() => resolve(void order.push("tick ended"))));
      const writes = [
        writer.submit(() => order.push("routine")),
        writer.submit(() => order.push("attended"), "attended"),
      ];
      await Promise.all([...writes, tickEnded]);
      expect(order).toEqual(["attended", "tick ended", "routine"]);
      expect(writer.commits).toBe(2);
    } finally {
      db.close();
    }
  });

  it("tells each caller whether its write committed in the attended lane, lifted there or not", async () => {
    const { db, writer } = writerOn(tempDb(), 256);
    try {
      const told = new Map<string, boolean>();
      const done = ["routine t", "attended t", "routine u"].map(
        (name) =>
          new Promise<void>((resolve, reject) =>
            writer.enqueue(
              () => name,
              (_value, attended) => resolve(void told.set(name, attended)),
              reject,
              name.startsWith("attended") ? "attended" : "routine",
              name.endsWith("t") ? "t" : "u",
            ),
          ),
      );
      await Promise.all(done);
      // The writer thread sends these flags with its answers, and the store tells attended ones first.
      expect(Object.fromEntries(told)).toEqual({ "routine t": true, "attended t": true, "routine u": false });
    } finally {
      db.close();
    }
  });

  it("lifts its task's person and routine writes into the attended lane, in order", async () => {
    const { db, writer } = writerOn(tempDb(), 256);
    try {
      const order: string[] = [];
      const writes = [
        writer.submit(() => order.push("p-other"), "person", "other"),
        writer.submit(() => order.push("r-t"), "routine", "t"),
        writer.submit(() => order.push("p-t"), "person", "t"),
        writer.submit(() => order.push("a-t"), "attended", "t"),
      ];
      await Promise.all(writes);
      expect(order).toEqual(["r-t", "p-t", "a-t", "p-other"]);
    } finally {
      db.close();
    }
  });
});

describe("BatchWriter lifts a task's routine writes", () => {
  it("runs the routine writes queued for a person's task just ahead of the person's write", async () => {
    const { db, writer } = writerOn(tempDb(), 256);
    try {
      const order: string[] = [];
      const writes = [
        writer.submit(() => order.push("a1"), "routine", "a"),
        writer.submit(() => order.push("b1"), "routine", "b"),
        writer.submit(() => order.push("a2"), "routine", "a"),
        writer.submit(() => order.push("c1"), "routine", "c"),
        writer.submit(() => order.push("b2"), "routine", "b"),
      ];
      writes.push(writer.submit(() => order.push("person b"), "person", "b"));
      await Promise.all(writes);
      // b's leg is blocked on b1 and b2: they go in the person lane ahead of the person's write, in
      // order; the lanes still take turns, so a and c's writes keep their order between them.
      expect(order).toEqual(["b1", "a1", "b2", "a2", "person b", "c1"]);
      expect(writer.commits).toBe(1);
    } finally {
      db.close();
    }
  });

  it("runs each lifted write once, and counts it once among the writes waiting", async () => {
    vi.useFakeTimers();
    const { db, writer } = writerOn(tempDb(), 2);
    try {
      const runs = new Map<string, number>();
      const run = (name: string) => () => runs.set(name, (runs.get(name) ?? 0) + 1);
      const writes = [
        writer.submit(run("r0"), "routine", "t"),
        writer.submit(run("r1"), "routine", "u"),
        writer.submit(run("r2"), "routine", "t"),
        writer.submit(run("p0"), "person", "t"),
        writer.submit(run("p1"), "person", "t"),
      ];
      await vi.runAllTimersAsync();
      await Promise.all(writes);
      expect([...runs].sort()).toEqual([
        ["p0", 1],
        ["p1", 1],
        ["r0", 1],
        ["r1", 1],
        ["r2", 1],
      ]);
      // Five writes in batches of two: three commits, none empty.
      expect(writer.commits).toBe(3);
    } finally {
      db.close();
    }
  });

  it("rejects every waiting write once when the transaction cannot begin", async () => {
    const { db, writer } = writerOn(tempDb(), 256);
    const routine = writer.submit(() => 1, "routine", "t");
    const person = writer.submit(() => 2, "person", "t");
    db.close(); // BEGIN fails on a closed connection
    const outcomes = await Promise.allSettled([routine, person]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
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
