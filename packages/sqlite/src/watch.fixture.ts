/** Watching a task in tests: until a given seq arrives, telling when the log so far was read. */
import type { Store } from "@sema-agent/core";

/**
 * Watch `taskId` from its start until seq `lastSeq` arrives. `live` resolves once `caughtUpAt`
 * was delivered (the log so far is read, so what comes next must wake the watcher); `seen` gives
 * every seq delivered, once the watch ended.
 */
export function watchUntil(
  store: Pick<Store, "watch">,
  taskId: string,
  caughtUpAt: number,
  lastSeq: number,
): { live: Promise<void>; seen: Promise<number[]> } {
  const controller = new AbortController();
  let caughtUp: () => void = () => undefined;
  const live = new Promise<void>((resolve) => {
    caughtUp = resolve;
  });
  const seen = (async () => {
    const seqs: number[] = [];
    for await (const event of store.watch(taskId, { signal: controller.signal })) {
      seqs.push(event.seq);
      if (event.seq === caughtUpAt) caughtUp();
      if (event.seq === lastSeq) controller.abort();
    }
    return seqs;
  })();
  return { live, seen };
}
