// Background WAL checkpoints (`SqliteStoreOptions.checkpoints`): after 256 writes a thread of the
// store's own copies the log back into the database, so no COMMIT on the calling thread stops for
// a checkpoint; the store closes as before (the log removed) and loses nothing.
import { execFile } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isSemaError } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CheckpointThread } from "./checkpoint-thread.ts";
import { SqliteStore } from "./sqlite-store.ts";
import { tempDb } from "./temp-dir.fixture.ts";

const stores: SqliteStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

function open(path: string, options: Partial<ConstructorParameters<typeof SqliteStore>[0]> = {}): SqliteStore {
  const store = new SqliteStore({ path, ...options });
  stores.push(store);
  return store;
}

/** `count` appends of a 4 KiB note each to a new task (a page or more of log per write). */
async function write(store: SqliteStore, count: number): Promise<void> {
  await store.createTask({ taskId: "t", created: make.created("p") });
  for (let seq = 1; seq <= count; seq++) await store.append("t", [make.note("x".repeat(4096))], { expectedSeq: seq });
}

describe("SqliteStore checkpoints", () => {
  it("runs them on a thread of its own once it has written 256 times", async () => {
    const path = tempDb();
    const store = open(path);
    await write(store, 100);
    // Before the 256th write there is no thread.
    expect(store.writeStats.checkpoints).toBe(0);
    const before = statSync(path).size;
    for (let seq = 101; seq <= 400; seq++) await store.append("t", [make.note("x".repeat(4096))], { expectedSeq: seq });
    // The thread copies the log into the database file (which the store's own connection, below
    // its raised threshold, would not have done by now).
    await vi.waitFor(
      () => {
        expect(store.writeStats.checkpoints).toBeGreaterThan(0);
        expect(statSync(path).size).toBeGreaterThan(before + 1024 * 1024);
      },
      { timeout: 20_000, interval: 20 },
    );
    await store.close();
    // The last connection closed checkpointed the whole log and removed it.
    expect(existsSync(`${path}-wal`)).toBe(false);
    const again = open(path);
    const events = await again.read("t");
    expect(events).toHaveLength(401);
    expect(events.at(-1)?.seq).toBe(401);
    expect(events.every((event, i) => event.seq === i + 1)).toBe(true);
  });

  it("leaves checkpoints to SQLite with checkpoints: inline", async () => {
    const store = open(tempDb(), { checkpoints: "inline" });
    await write(store, 300);
    expect(store.writeStats.checkpoints).toBe(0);
  });

  it("starts no thread with a writer thread: its COMMITs checkpoint there", async () => {
    const store = open(tempDb(), { writer: "thread" });
    await write(store, 300);
    expect(store.writeStats.checkpoints).toBe(0);
  });

  it("refuses a bad value, and background checkpoints for a database in memory", () => {
    for (const [path, checkpoints] of [
      [tempDb(), "sometimes"],
      [":memory:", "background"],
    ] as const) {
      let error: unknown;
      try {
        open(path, { checkpoints: checkpoints as "background" });
      } catch (caught) {
        error = caught;
      }
      expect(isSemaError(error, "ConfigError")).toBe(true);
      expect(String((error as Error).message)).toContain("checkpoints");
    }
    // In memory, the default is inline.
    expect(open(":memory:").writeStats.checkpoints).toBe(0);
  });

  it("lets a script end normally after its last await store.close()", async () => {
    const fixture = fileURLToPath(new URL("./close-exit.fixture.ts", import.meta.url));
    const result = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ["--conditions=source", "--no-warnings", fixture, tempDb()],
        { timeout: 60_000 },
        (_error, stdout) => resolve({ code: child.exitCode, stdout }),
      );
    });
    expect(result).toEqual({ code: 0, stdout: "closed after 301 writes\n" });
  });

  it("tells the store when the thread ends before it was stopped", async () => {
    const died = vi.fn();
    const thread = new CheckpointThread(
      { path: tempDb(), busyTimeoutMs: 100, intervalMs: 50 },
      died,
      new URL("data:text/javascript,process.exit(3)"),
    );
    await vi.waitFor(() => expect(died).toHaveBeenCalledOnce(), { timeout: 10_000, interval: 10 });
    await thread.stop();
    expect(died).toHaveBeenCalledOnce();
  });
});
