import * as vitest from "vitest";
import { runStoreConformance } from "../testing/store-conformance.ts";
import { MemoryStore } from "./memory-store.ts";

runStoreConformance("MemoryStore", { test: vitest, create: async () => new MemoryStore() });
