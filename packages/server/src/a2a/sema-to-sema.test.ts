/**
 * Sema on both ends of A2A: a task whose model calls `delegateA2A` (`@sema-agent/a2a`, the client
 * side) hands its sub-task to another Sema's A2A server over a real socket, and gets the remote
 * agent's answer as the tool's result; the remote task is the caller's principal's, with the
 * sub-task as its objective.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { delegateA2A } from "@sema-agent/a2a";
import { MemoryStore, runLeg, startTask } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type A2AServer, freshDir, startA2AServer } from "../test-support/a2a-server.ts";
import { scriptedAgent } from "../test-support/api-fixture.ts";

let server: A2AServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("Sema to Sema over A2A", () => {
  it("delegateA2A gets the remote Sema agent's answer", async () => {
    dir = freshDir();
    server = await startA2AServer(join(dir, "remote.db"), { default: scriptedAgent([{ text: "The total is 42." }]) });
    const token = server.serving.firstToken?.token ?? "";
    const local = new MemoryStore();
    const agent = {
      model: new ScriptedModel(
        [
          { toolCalls: [{ name: "delegate_a2a", input: { message: "What is the November total?" }, callId: "c1" }] },
          { text: "The remote agent says 42." },
        ],
        { mode: "by-transcript" },
      ),
      tools: [delegateA2A({ url: server.serving.url, token })],
    };
    const taskId = await startTask(local, { objective: "Ask billing for the total" });
    const outcome = await runLeg({ store: local, agent }, taskId);
    expect(outcome.status).toBe("completed");
    const result = (await local.read(taskId)).find((e) => e.type === "tool_result" && e.callId === "c1");
    expect(result?.type === "tool_result" ? result.content : "").toContain("The total is 42.");
    const remote = await server.store.listTasks({ principal: "local" });
    expect(remote.tasks).toHaveLength(1);
    const [created] = await server.store.read(remote.tasks[0]?.taskId ?? "", { limit: 1 });
    expect(created?.type === "task_created" ? created.objective : "").toBe("What is the November total?");
  });
});
