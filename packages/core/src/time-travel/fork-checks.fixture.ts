/**
 * Checks of `forkTask` that every store must pass, written once for the stores' own tests
 * (packages/sqlite and packages/postgres import this file by its path: it is a test fixture, on no
 * published surface): a fork at every seq of a recorded task, and a fork of a long synthetic log.
 */
import { expect } from "vitest";
import { summarize } from "../core/task-summary.ts";
import type { Store } from "../ports/store.ts";
import type { StoredEvent, TaskEvent } from "../protocol/task-event.ts";
import { make } from "../testing/event-factories.ts";
import { type ForkResult, forkTask } from "./fork-task.ts";
import { recordTrip } from "./recorded-task.fixture.ts";
import { unstamped } from "./unstamped.ts";

/** What a fork of `source` must begin with: its events through `seq`, unstamped, the root's parent dropped. */
export function expectedPrefix(source: readonly StoredEvent[], seq: number): TaskEvent[] {
  return source.slice(0, seq).map((event, i) => {
    const copy = unstamped(event);
    if (i === 0 && copy.type === "task_created") {
      const { parentTaskId: _parent, ...root } = copy;
      return root;
    }
    return copy;
  });
}

/**
 * The fork is whole: the source's prefix through `fork.seq`, then its `task_forked` naming the
 * source, and its record's summary is the fold of its log (`forkedFrom` set, no parent).
 */
export async function expectWholeFork(store: Store, source: readonly StoredEvent[], fork: ForkResult): Promise<void> {
  const copied = await store.read(fork.taskId);
  expect(copied.slice(0, fork.seq).map(unstamped)).toEqual(expectedPrefix(source, fork.seq));
  expect(copied[fork.seq]).toMatchObject({
    type: "task_forked",
    origin: "fork",
    source: { taskId: fork.sourceTaskId, seq: fork.seq },
  });
  const record = await store.getTask(fork.taskId);
  expect(record.parentTaskId).toBeUndefined();
  expect(record.lastSeq).toBe(copied.length);
  expect(record.summary.forkedFrom).toEqual({ taskId: fork.sourceTaskId, seq: fork.seq, origin: "fork" });
  expect(record.summary).toEqual(summarize(copied));
}

/** Every task of `principal` listed as a fork of `source`, through every page. */
export async function listedForks(store: Store, principal: string, source: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const options = { principal, forkedFrom: source, limit: 7 };
    const page = await store.listTasks(cursor === undefined ? options : { ...options, cursor });
    ids.push(...page.tasks.map((task) => task.taskId));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return ids;
}

/**
 * Record the trip in `store`, then fork it and its child at every seq: each fork is whole, the
 * sources' logs and records are unchanged byte for byte, and `listTasks({ forkedFrom })` lists
 * each source's forks and no other task (forks made within one millisecond list in id order, so
 * the ids are compared as sets; the listing's order is the conformance suite's to check).
 */
export async function expectForksAtEverySeq(store: Store): Promise<void> {
  const { taskId } = await recordTrip(store);
  const log = await store.read(taskId);
  const child = log.find((event) => event.type === "child_task")?.childTaskId;
  if (child === undefined) throw new Error("the trip has no child task");
  for (const sourceId of [taskId, child]) {
    const source = await store.read(sourceId);
    const before = JSON.stringify([source, await store.getTask(sourceId)]);
    const forks: string[] = [];
    for (const event of source) {
      const fork = await forkTask(store, sourceId, { atSeq: event.seq, principal: "acme" });
      expect(fork.seq).toBeLessThanOrEqual(event.seq);
      await expectWholeFork(store, source, fork);
      forks.push(fork.taskId);
    }
    expect(JSON.stringify([await store.read(sourceId), await store.getTask(sourceId)])).toBe(before);
    expect((await listedForks(store, "acme", sourceId)).sort()).toEqual(forks.sort());
    expect(await listedForks(store, "someone-else", sourceId)).toEqual([]);
  }
}

/**
 * The events after a long task's creation, `length - 1` of them: a leg, tool-using turns (a turn
 * with one call, the call starting, its result), then engine notes to make up the count. Each
 * ends on a step boundary, so a fork of the task copies all of it.
 */
export function longTaskEvents(length: number): TaskEvent[] {
  const events: TaskEvent[] = [make.legStarted("leg-1")];
  for (let i = 0; events.length + 3 <= length - 1; i++) {
    const callId = `call-${i}`;
    events.push(make.turn(i + 1, `turn ${i}`, [{ callId, name: "read_file", input: { path: "a.ts", line: i } }]));
    events.push(make.toolStarted(callId, "read_file"), make.toolResult(callId, `contents ${i}`, "read_file"));
  }
  while (events.length < length - 1) events.push(make.note(`padding ${events.length}`));
  return events;
}

/**
 * A task of `principal` whose log is `length` events (see {@link longTaskEvents}), written by
 * `createTask` and appends of `batch` events. Returns its id.
 */
export async function recordLongTask(store: Store, length: number, principal = "acme", batch = 500): Promise<string> {
  const events = longTaskEvents(length);
  const [created] = await store.createTask({ created: make.created(principal, "A long task") });
  if (created === undefined) throw new Error("createTask returned no event");
  let lastSeq = 1;
  for (let start = 0; start < events.length; start += batch) {
    const stored = await store.append(created.taskId, events.slice(start, start + batch), { expectedSeq: lastSeq });
    lastSeq = stored.at(-1)?.seq ?? lastSeq;
  }
  return created.taskId;
}
