// Background WAL checkpoints (`SqliteStoreOptions.checkpoints`): after 4,096 writes a thread of the
// store's own copies the log back into the database, so no COMMIT on the calling thread stops for
// a checkpoint; the store closes as before (the log removed) and loses nothing.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
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

/** A new task, then `count` appends of a small note each (`from` the seq after its last). */
async function write(store: SqliteStore, count: number, from = 1): Promise<void> {
  if (from === 1) await store.createTask({ taskId: "t", created: make.created("p") });
  for (let seq = from; seq < from + count; seq++) await store.append("t", [make.note("x")], { expectedSeq: seq });
}

describe("SqliteStore checkpoints", () => {
  it("runs them on a thread of its own once it has written 4,096 times", async () => {
    const path = tempDb();
    const store = open(path);
    // The creation and 4,094 appends: 4,095 writes, and no thread yet.
    await write(store, 4094);
    expect(store.writeStats.checkpoints).toBe(0);
    await write(store, 200, 4095);
    // The thread checkpoints what was committed (its checkpoints are the only ones counted).
    await vi.waitFor(() => expect(store.writeStats.checkpoints).toBeGreaterThan(0), { timeout: 20_000, interval: 20 });
    await write(store, 100, 4295);
    await store.close();
    // The last connection closed checkpointed the whole log and removed it.
    expect(existsSync(`${path}-wal`)).toBe(false);
    const again = open(path);
    const events = await again.read("t");
    expect(events).toHaveLength(4395);
    expect(events.every((event, i) => event.seq === i + 1)).toBe(true);
  });

  it("leaves checkpoints to SQLite with checkpoints: inline", async () => {
    const store = open(tempDb(), { checkpoints: "inline" });
    await write(store, 4200);
    expect(store.writeStats.checkpoints).toBe(0);
  });

  it("starts no thread with a writer thread: its COMMITs checkpoint there", async () => {
    const store = open(tempDb(), { writer: "thread" });
    await write(store, 4200);
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

  const runFixture = (v8Options: string[]) =>
    new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const fixture = fileURLToPath(new URL("./close-exit.fixture.ts", import.meta.url));
      const child = execFile(
        process.execPath,
        [...v8Options, "--conditions=source", "--no-warnings", fixture, tempDb()],
        { timeout: 60_000 },
        (_error, stdout) => resolve({ code: child.exitCode, stdout }),
      );
    });

  it("lets a script end normally after its last await store.close()", async () => {
    expect(await runFixture([])).toEqual({ code: 0, stdout: "closed after 4201 writes, the thread ran\n" });
  });

  it("starts its thread in a process run with V8 options, which a worker refuses", async () => {
    // Node will not start a worker given --max-old-space-size or --expose-gc: the 4,097th write
    // started the thread with this process's options and failed.
    expect(await runFixture(["--max-old-space-size=512", "--expose-gc"])).toEqual({
      code: 0,
      stdout: "closed after 4201 writes, the thread ran\n",
    });
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
