/**
 * The size-limit part of the store conformance suite, for adapters that give `createLimited`: an
 * event whose JSON is over `maxEventBytes`, or a blob over `maxBlobBytes`, is refused with
 * `ContentTooLarge` and nothing is written; one exactly at the limit is taken.
 */
import type * as Vitest from "vitest";
import type { Store, StoreSizeLimits } from "../ports/store.ts";
import type { SemaErrorCode } from "../protocol/errors.ts";
import type { TaskEvent } from "../protocol/task-event.ts";
import { make } from "./event-factories.ts";

/** What the size-limit part needs: the runner, a store made with limits, and the error check. */
export interface SizeLimitContext {
  describe: typeof Vitest.describe;
  it: typeof Vitest.it;
  expect: typeof Vitest.expect;
  freshLimited(limits: Required<StoreSizeLimits>): Promise<Store>;
  expectCode(promise: Promise<unknown>, code: SemaErrorCode): Promise<unknown>;
}

/** A note whose JSON is exactly `bytes` long. */
function noteOf(bytes: number): TaskEvent {
  const empty = JSON.stringify(make.note("")).length;
  return make.note("x".repeat(bytes - empty));
}

export function sizeLimitConformance(context: SizeLimitContext): void {
  const { describe, it, expect, freshLimited, expectCode } = context;
  describe("size limits", () => {
    it("refuses an event over maxEventBytes of JSON, and a blob over maxBlobBytes, writing nothing", async () => {
      const store = await freshLimited({ maxEventBytes: 4096, maxBlobBytes: 64 });
      const [created] = await store.createTask({ created: make.created() });
      const id = created?.taskId ?? "";
      const over = await expectCode(
        store.append(id, [make.note(), noteOf(4097)], { expectedSeq: 1 }),
        "ContentTooLarge",
      );
      expect(over).toMatchObject({ size: 4097, limit: 4096, details: { what: "event", index: 1 } });
      // UTF-8 bytes, not characters: 2,000 two-byte characters are over 4,096 bytes with the note's keys.
      await expectCode(store.append(id, [make.note("é".repeat(2100))], { expectedSeq: 1 }), "ContentTooLarge");
      await expectCode(store.createTask({ created: make.created(), more: [noteOf(5000)] }), "ContentTooLarge");
      expect((await store.read(id)).length).toBe(1);
      await store.append(id, [noteOf(4096)], { expectedSeq: 1 });
      if (store.putBlob !== undefined) {
        const blob = await expectCode(
          store.putBlob({ digest: "c".repeat(64), bytes: new Uint8Array(65) }),
          "ContentTooLarge",
        );
        expect(blob).toMatchObject({ size: 65, limit: 64, details: { what: "blob" } });
        expect(await store.getBlob?.("c".repeat(64))).toBeUndefined();
        await store.putBlob({ digest: "d".repeat(64), bytes: new Uint8Array(64) });
      }
    });
  });
}
