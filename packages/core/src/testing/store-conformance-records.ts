/**
 * The records part of the store conformance suite (`putRecord`, `getRecord`, `listRecords`):
 * versions run from 1 per name and are never overwritten, a conditional put loses a race with a
 * typed error, a principal sees only its own records, lists page by name without bodies, and
 * every malformed kind, name, body or cursor is refused with the same message on every store.
 */
import type { Store } from "../ports/store.ts";
import type { ConformanceContext } from "./store-conformance-live.ts";

type RecordStore = Store & Required<Pick<Store, "putRecord" | "getRecord" | "listRecords">>;

export function recordsConformance(context: ConformanceContext): void {
  const { describe, it, expect, fresh, expectCode } = context;
  async function recordStore(): Promise<RecordStore> {
    const store = await fresh();
    expect(typeof store.putRecord, "the store has putRecord").toBe("function");
    expect(typeof store.getRecord, "the store has getRecord").toBe("function");
    expect(typeof store.listRecords, "the store has listRecords").toBe("function");
    return store as RecordStore;
  }

  describe("records", () => {
    it("adds a version per put, keeps every one, and returns the latest by default", async () => {
      const store = await recordStore();
      const before = Date.now();
      const first = await store.putRecord({
        kind: "dataset",
        principal: "alice",
        name: "faq",
        body: { cases: [{ input: "Hi" }], note: "é ✓ \u0000 \ud83d\ude00" },
        meta: { cases: 1 },
      });
      expect(first).toMatchObject({ kind: "dataset", principal: "alice", name: "faq", version: 1, meta: { cases: 1 } });
      expect(Date.parse(first.createdAt)).toBeGreaterThanOrEqual(before - 1000);
      const second = await store.putRecord({ kind: "dataset", principal: "alice", name: "faq", body: [1, 2, 3] });
      expect(second.version).toBe(2);
      expect(second.meta).toEqual({});
      expect(await store.getRecord({ kind: "dataset", principal: "alice", name: "faq" })).toEqual(second);
      expect(await store.getRecord({ kind: "dataset", principal: "alice", name: "faq", version: 1 })).toEqual(first);
      expect(await store.getRecord({ kind: "dataset", principal: "alice", name: "faq", version: 3 })).toBeUndefined();
      expect(await store.getRecord({ kind: "dataset", principal: "alice", name: "nope" })).toBeUndefined();
      // Another kind with the same name is another record.
      expect(await store.getRecord({ kind: "experiment", principal: "alice", name: "faq" })).toBeUndefined();
    });

    it("puts conditionally: 0 only for a new name, n only over version n", async () => {
      const store = await recordStore();
      const key = { kind: "experiment", principal: "alice", name: "exp-1" };
      await store.putRecord({ ...key, body: { a: 1 }, expectedVersion: 0 });
      await expectCode(store.putRecord({ ...key, body: { a: 2 }, expectedVersion: 0 }), "RecordConflict");
      await expectCode(store.putRecord({ ...key, body: { a: 2 }, expectedVersion: 2 }), "RecordConflict");
      expect((await store.putRecord({ ...key, body: { a: 2 }, expectedVersion: 1 })).version).toBe(2);
      expect((await store.getRecord(key))?.body).toEqual({ a: 2 });
    });

    it("lets exactly one of many racing conditional puts of a new name win", async () => {
      const store = await recordStore();
      const key = { kind: "experiment", principal: "alice", name: "race" };
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => store.putRecord({ ...key, body: i, expectedVersion: 0 })),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      for (const r of results)
        if (r.status === "rejected") expect((r.reason as { code: string }).code).toBe("RecordConflict");
      expect((await store.getRecord(key))?.version).toBe(1);
    });

    it("keeps each principal's records to itself", async () => {
      const store = await recordStore();
      await store.putRecord({ kind: "dataset", principal: "alice", name: "faq", body: "alice's" });
      expect(await store.getRecord({ kind: "dataset", principal: "bob", name: "faq" })).toBeUndefined();
      expect((await store.listRecords({ kind: "dataset", principal: "bob" })).records).toEqual([]);
      const bobs = await store.putRecord({ kind: "dataset", principal: "bob", name: "faq", body: "bob's" });
      expect(bobs.version).toBe(1);
      expect((await store.getRecord({ kind: "dataset", principal: "alice", name: "faq" }))?.body).toBe("alice's");
    });

    it("lists the latest version of each name, in name order, without bodies, page by page", async () => {
      const store = await recordStore();
      const names = ["b-2", "a", "c.3", "B", "a:1", "0"];
      for (const name of names) await store.putRecord({ kind: "dataset", principal: "alice", name, body: name });
      await store.putRecord({ kind: "dataset", principal: "alice", name: "a", body: "again", meta: { n: 2 } });
      await store.putRecord({ kind: "experiment", principal: "alice", name: "zz", body: 1 });
      const listed: { name: string; version: number }[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.listRecords({
          kind: "dataset",
          principal: "alice",
          limit: 4,
          ...(cursor ? { cursor } : {}),
        });
        for (const record of page.records) {
          expect(record).not.toHaveProperty("body");
          listed.push({ name: record.name, version: record.version });
        }
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      expect(listed.map((r) => r.name)).toEqual([...names].sort());
      expect(listed.find((r) => r.name === "a")?.version).toBe(2);
      const [a] = (await store.listRecords({ kind: "dataset", principal: "alice", limit: 1, cursor: "0" })).records;
      expect(a).toMatchObject({ name: "B" });
    });

    it("refuses a malformed kind, name, principal, version, body, meta, limit or cursor", async () => {
      const store = await recordStore();
      const ok = { kind: "dataset", principal: "alice", name: "faq", body: 1 };
      for (const bad of [
        { ...ok, kind: "Dataset" },
        { ...ok, kind: "" },
        { ...ok, name: "" },
        { ...ok, name: "-leading" },
        { ...ok, name: "a/b" },
        { ...ok, name: "x".repeat(129) },
        { ...ok, principal: "" },
        { ...ok, body: undefined as never },
        { ...ok, body: Number.NaN },
        { ...ok, meta: [] as never },
        { ...ok, expectedVersion: -1 },
        { ...ok, expectedVersion: 1.5 },
      ])
        await expectCode(store.putRecord(bad), "InvalidInput");
      await expectCode(store.getRecord({ kind: "dataset", principal: "alice", name: "../x" }), "InvalidInput");
      await expectCode(
        store.getRecord({ kind: "dataset", principal: "alice", name: "faq", version: 0 }),
        "InvalidInput",
      );
      await expectCode(store.listRecords({ kind: "dataset", principal: "alice", limit: 0 }), "InvalidInput");
      await expectCode(store.listRecords({ kind: "dataset", principal: "alice", limit: 1001 }), "InvalidInput");
      await expectCode(store.listRecords({ kind: "dataset", principal: "alice", cursor: "'; DROP" }), "InvalidInput");
      expect((await store.listRecords({ kind: "dataset", principal: "alice" })).records).toEqual([]);
    });
  });
}
