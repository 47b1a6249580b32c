import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../protocol/task-event.ts";
import { ChangeNotifier, type TailSource, tailEvents } from "./tail-events.ts";

const event = (seq: number): StoredEvent =>
  ({ type: "task_completed", v: 1, result: "r", taskId: "t", seq, at: "2026-12-01T00:00:00.000Z" }) as StoredEvent;

/** A log in memory with a notifier, counting its reads. */
function source(withLastKnown: boolean) {
  const log: StoredEvent[] = [];
  const notifier = new ChangeNotifier();
  let reads = 0;
  const tail: TailSource = {
    read: async (afterSeq, limit) => {
      reads++;
      return log.filter((e) => e.seq > afterSeq).slice(0, limit);
    },
    changed: (signal) => notifier.wait("t", signal),
  };
  if (withLastKnown) tail.lastKnown = () => notifier.lastKnown("t");
  const append = (withSeq = true) => {
    log.push(event(log.length + 1));
    notifier.notify("t", withSeq ? log.length : undefined);
  };
  return { tail, append, notifier, reads: () => reads };
}

async function take(events: AsyncGenerator<StoredEvent>, n: number): Promise<number[]> {
  const seqs: number[] = [];
  for await (const e of events) {
    seqs.push(e.seq);
    if (seqs.length === n) break;
  }
  return seqs;
}

describe("tailEvents and the change notifier", () => {
  it("a tail starting where the store's knowledge ends skips its first read, and still gets every later append", async () => {
    const s = source(true);
    s.append();
    s.append();
    const got = take(tailEvents(s.tail, 2), 2);
    await Promise.resolve();
    expect(s.reads()).toBe(0);
    s.append();
    s.append();
    expect(await got).toEqual([3, 4]);
  });

  it("reads first when the store knows nothing it can stand by (a notice without a seq, notifyAll)", async () => {
    type Source = ReturnType<typeof source>;
    // Each leaves two events in the log, the store unsure it heard of the second.
    const forgetting: Array<(s: Source) => void> = [
      (s) => s.append(false),
      (s) => {
        s.append();
        s.notifier.notifyAll();
      },
    ];
    for (const forget of forgetting) {
      const s = source(true);
      s.append();
      forget(s);
      expect(s.notifier.lastKnown("t")).toBeUndefined();
      const got = take(tailEvents(s.tail, 2), 1);
      await Promise.resolve();
      await Promise.resolve();
      expect(s.reads()).toBe(1);
      s.append();
      expect(await got).toEqual([3]);
    }
  });

  it("a tail behind the store's knowledge reads what it missed", async () => {
    const s = source(true);
    s.append();
    s.append();
    expect(await take(tailEvents(s.tail, 0), 2)).toEqual([1, 2]);
  });

  it("a notice of what was notified already wakes nobody; a newer one does", async () => {
    const notifier = new ChangeNotifier();
    notifier.notify("t", 5);
    let woke = 0;
    const waiting = notifier.wait("t", new AbortController().signal).then(() => woke++);
    notifier.notify("t", 5);
    notifier.notify("t", 4);
    await Promise.resolve();
    expect(woke).toBe(0);
    notifier.notify("t", 6);
    await waiting;
    expect(woke).toBe(1);
    expect(notifier.lastKnown("t")).toBe(6);
  });

  it("keeps a bounded number of tasks' seqs, forgetting the least recently notified", () => {
    const notifier = new ChangeNotifier();
    for (let i = 0; i <= 100_000; i++) notifier.notify(`task-${i}`, 1);
    expect(notifier.lastKnown("task-0")).toBeUndefined();
    expect(notifier.lastKnown("task-100000")).toBe(1);
  });
});
