// Finding 5 of issue 13: a model's catastrophic regex must not stall the process.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { MemoryStore, runLeg, startTask } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RegexTimeoutError } from "./regex-worker.ts";
import { createSearchTextTool } from "./search-text.ts";
import { callTool, createSandbox, type Sandbox } from "./test-support.ts";

let sandbox: Sandbox;

beforeEach(async () => {
  sandbox = await createSandbox();
  await mkdir(path.join(sandbox.root, "logs"));
  // `(a+)+$` against 32 a's and a "!" backtracks through ~2^32 paths: minutes of one thread.
  await writeFile(path.join(sandbox.root, "logs", "poison.txt"), `${"a".repeat(32)}!\n`);
});

afterEach(() => sandbox.cleanup());

/** Counts turns of the event loop until stopped: it only grows while the main thread is free. */
function loopTurns(): { count: () => number; stop: () => void } {
  let turns = 0;
  let running = true;
  const spin = () => {
    if (!running) return;
    turns += 1;
    setImmediate(spin);
  };
  setImmediate(spin);
  return { count: () => turns, stop: () => (running = false) };
}

describe("search_text with a catastrophic regular expression", () => {
  it("keeps the event loop turning and stops at its own timeout with a typed error", async () => {
    const search = createSearchTextTool(sandbox.root, { regexTimeoutMs: 500 });
    const turns = loopTurns();
    let timerFired = false;
    const timer = setTimeout(() => (timerFired = true), 50);
    const outcome = await callTool(search, { pattern: "(a+)+$", regex: true }).then(
      () => "returned",
      (error: unknown) => error,
    );
    turns.stop();
    clearTimeout(timer);
    expect(outcome).toBeInstanceOf(RegexTimeoutError);
    expect(String(outcome)).toMatch(/stopped after 500 ms/);
    // The main thread was free the whole time: timers fired and the loop went round many times.
    expect(timerFired).toBe(true);
    expect(turns.count()).toBeGreaterThan(20);
  });

  it("stops the matching when its signal aborts (the harness's tool timeout, a cancel)", async () => {
    const search = createSearchTextTool(sandbox.root);
    const controller = new AbortController();
    const turns = loopTurns();
    // Aborts only once the loop has turned: proof the search is not holding the thread.
    const abortLater = () => (turns.count() > 20 ? controller.abort(new Error("cancelled")) : setImmediate(abortLater));
    setImmediate(abortLater);
    await expect(callTool(search, { pattern: "(a+)+$", regex: true }, controller.signal)).rejects.toThrow("cancelled");
    turns.stop();
  });

  it("is recorded by the harness as a timed-out error result, not left in doubt", async () => {
    const store = new MemoryStore();
    const model = new ScriptedModel([
      { toolCalls: [{ name: "search_text", input: { pattern: "(a+)+$", regex: true } }] },
      { text: "Gave up on that pattern." },
    ]);
    const taskId = await startTask(store, { objective: "Search" });
    const outcome = await runLeg(
      { store, agent: { model, tools: [createSearchTextTool(sandbox.root)] }, toolTimeoutMs: 300 },
      taskId,
    );
    expect(outcome.status).toBe("completed");
    const events = await store.read(taskId);
    const result = events.find((event) => event.type === "tool_result");
    // search_text's output is untrusted, so its error result is fenced like its output.
    expect(result).toMatchObject({ status: "error" });
    expect(result?.type === "tool_result" ? result.content : "").toMatch(
      /^<untrusted-[0-9a-f]{16} kind="tool_error" from="search_text">\nThe tool search_text timed out after 300 ms\.\n<\/untrusted-[0-9a-f]{16}>$/,
    );
  });

  it("still finds matches of a well-behaved pattern", async () => {
    const search = createSearchTextTool(sandbox.root);
    await expect(callTool(search, { pattern: "^a{3}", regex: true })).resolves.toBe(
      `logs/poison.txt:1: ${"a".repeat(32)}!`,
    );
  });
});
