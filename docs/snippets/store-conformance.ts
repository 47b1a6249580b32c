import { MemoryStore } from "@sema-agent/core";
import { runStoreConformance } from "@sema-agent/core/testing/conformance";
import * as vitest from "vitest";

runStoreConformance("MemoryStore (docs snippet)", {
  test: vitest,
  create: async () => new MemoryStore(),
});
