/**
 * The other process of the cross-process `createAgent` tests: its own SqliteStore on the same
 * file and its own handle, so the parent sees only what the file carries. Prints a JSON line.
 *
 *   node --conditions=source agent-process.fixture.ts send <path> <taskId> <text>
 *   node --conditions=source agent-process.fixture.ts continue-chat <path> <taskId>
 *   node --conditions=source agent-process.fixture.ts continue-deploy <path> <taskId>
 */
import { chatAgent, deployAgent } from "./agent-handles.fixture.ts";
import { SqliteStore } from "./sqlite-store.ts";

const [mode, path, taskId, text = ""] = process.argv.slice(2);
if (mode === undefined || path === undefined || taskId === undefined)
  throw new Error("usage: agent-process.fixture.ts send|continue-chat|continue-deploy <path> <taskId> [text]");
// The parent's test block picks the writer (SEMA_TEST_WRITER), so both processes run the same kind.
const store = new SqliteStore({ path, writer: process.env.SEMA_TEST_WRITER === "thread" ? "thread" : "main" });
try {
  if (mode === "send") {
    process.stdout.write(`${JSON.stringify(await chatAgent(store).send(taskId, text))}\n`);
  } else if (mode === "continue-chat") {
    const result = await chatAgent(store).continue(taskId);
    process.stdout.write(`${JSON.stringify({ status: result.status, text: result.text })}\n`);
  } else if (mode === "continue-deploy") {
    const { agent, runs } = deployAgent(store);
    const result = await agent.continue(taskId);
    process.stdout.write(`${JSON.stringify({ status: result.status, text: result.text, runs })}\n`);
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
} finally {
  await store.close();
}
