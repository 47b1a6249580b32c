/**
 * A writer thread that dies, for thread-writer.test.ts: at the first writes it exits with code 7,
 * or throws when the store's path (its `workerData.path`) ends in `throw`; it never answers a write.
 */
import { parentPort, workerData } from "node:worker_threads";

const throws = String((workerData as { path: string }).path).endsWith("throw");
parentPort?.on("message", (message: { type: string }) => {
  if (message.type !== "write") return;
  if (!throws) process.exit(7);
  throw new Error("the writer broke");
});
