import { runStoreConformance } from "../testing/store-conformance.ts";
import { MemoryStore } from "./memory-store.ts";

runStoreConformance("MemoryStore", { create: async () => new MemoryStore() });
