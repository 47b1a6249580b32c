import * as vitest from "vitest";
import { runStoreConformance } from "../testing/store-conformance.ts";
import { MemoryStore } from "./memory-store.ts";

runStoreConformance("MemoryStore", {
  test: vitest,
  create: async () => new MemoryStore(),
  createLimited: async (limits) => new MemoryStore(limits),
});

vitest.describe("MemoryStore size limits", () => {
  vitest.it("refuses a limit that is not a positive whole number of bytes, naming it", () => {
    vitest.expect(() => new MemoryStore({ maxEventBytes: 0 })).toThrow(/maxEventBytes/);
    vitest.expect(() => new MemoryStore({ maxBlobBytes: 1.5 })).toThrow(/maxBlobBytes/);
  });
});
