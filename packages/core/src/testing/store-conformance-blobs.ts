/**
 * The blob part of the store conformance suite: the content-addressed bytes of image and file
 * parts (`putBlob` / `getBlob`) come back byte for byte, storing the same digest twice is a no-op,
 * no caller can change stored bytes through an array it holds, and the version-2 events that
 * reference blobs are stored and read back unchanged.
 */
import type { Store } from "../ports/store.ts";
import type { TaskEvent } from "../protocol/task-event.ts";
import type { ConformanceContext } from "./store-conformance-live.ts";

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", bytes.slice().buffer));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

type BlobStore = Store & Required<Pick<Store, "putBlob" | "getBlob">>;

export function blobConformance(context: ConformanceContext): void {
  const { describe, it, expect, fresh, newTask, expectCode } = context;
  async function blobStore(): Promise<BlobStore> {
    const store = await fresh();
    expect(typeof store.putBlob, "the store has putBlob").toBe("function");
    expect(typeof store.getBlob, "the store has getBlob").toBe("function");
    return store as BlobStore;
  }

  describe("blobs", () => {
    it("returns the bytes stored under a digest, every byte value and the empty blob included", async () => {
      const store = await blobStore();
      const every = Uint8Array.from({ length: 512 }, (_, i) => i % 256);
      const big = new Uint8Array(1 << 20).map((_, i) => (i * 31) % 251);
      for (const bytes of [every, new Uint8Array(0), big]) {
        const digest = await sha256(bytes);
        await store.putBlob({ digest, bytes });
        const read = await store.getBlob(digest);
        expect(read).toBeInstanceOf(Uint8Array);
        expect(read?.length).toBe(bytes.length);
        expect(read?.every((byte, i) => byte === bytes[i])).toBe(true);
      }
      expect(await store.getBlob("0".repeat(64))).toBeUndefined();
    });

    it("stores a digest once, and no caller changes stored bytes through its own array", async () => {
      const store = await blobStore();
      const bytes = Uint8Array.from([1, 2, 3, 4]);
      const digest = await sha256(bytes);
      await store.putBlob({ digest, bytes });
      await store.putBlob({ digest, bytes: Uint8Array.from([1, 2, 3, 4]) });
      bytes[0] = 99;
      const read = await store.getBlob(digest);
      expect(Array.from(read ?? [])).toEqual([1, 2, 3, 4]);
      if (read !== undefined) read[1] = 99;
      expect(Array.from((await store.getBlob(digest)) ?? [])).toEqual([1, 2, 3, 4]);
    });

    it("refuses a digest that is not lowercase-hex SHA-256", async () => {
      const store = await blobStore();
      await expectCode(store.putBlob({ digest: "not-a-digest", bytes: new Uint8Array(1) }), "InvalidInput");
      await expectCode(store.getBlob("A".repeat(64)), "InvalidInput");
    });

    it("stores and reads back the version-2 events that reference blobs", async () => {
      const store = await blobStore();
      const id = await newTask(store);
      const image = { type: "image" as const, digest: "a".repeat(64), mediaType: "image/png", size: 3 };
      const file = {
        type: "file" as const,
        digest: "b".repeat(64),
        mediaType: "application/pdf",
        size: 9,
        filename: "r.pdf",
      };
      const url = { type: "image" as const, url: "https://example.com/cat.png", mediaType: "image/png" };
      const events: TaskEvent[] = [
        {
          type: "human_input",
          v: 2,
          inputId: "in-parts",
          carrier: "steer",
          source: "user",
          delivery: "parked",
          sessionSeq: 0,
          text: "look",
          attachments: [image, file, url],
        },
        {
          type: "user_message",
          v: 2,
          entryId: "entry:in-parts",
          content: "look",
          inputIds: ["in-parts"],
          parts: [{ type: "text", text: "look" }, image, file, url],
        },
      ];
      await store.append(id, events, { expectedSeq: 1 });
      const read = await store.read(id, { afterSeq: 1 });
      expect(read).toEqual(events.map((event, i) => ({ taskId: id, seq: i + 2, at: read[i]?.at, ...event })));
      // The version marks the new shape: attachments on a version-1 event are refused.
      await expectCode(store.append(id, [{ ...events[0], v: 1 } as TaskEvent], { expectedSeq: 3 }), "InvalidEvent");
    });
  });
}
