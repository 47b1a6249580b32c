import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadAgents } from "./agent-config.ts";

const dir = () => mkdtempSync(join(tmpdir(), "sema-config-"));
const noModel = () => {
  throw new Error("the default agent was not expected");
};

describe("sema.config", () => {
  it("reads agents from sema.config.json: model, instructions, tools, approvals, limits", async () => {
    const cwd = dir();
    const script = join(cwd, "turns.json");
    writeFileSync(script, JSON.stringify({ turns: [{ text: "hi" }] }));
    writeFileSync(
      join(cwd, "sema.config.json"),
      JSON.stringify({
        agents: {
          reader: {
            model: `script:${script}`,
            instructions: "Only read.",
            tools: ["read_file", "list_dir"],
            approve: [],
            maxTurns: 5,
            approvers: "any-verified-actor",
          },
          writer: { model: `script:${script}` },
        },
        defaultAgent: "reader",
      }),
    );
    const set = await loadAgents(cwd, {}, noModel);
    expect(set).toMatchObject({
      defaultAgent: "reader",
      source: "sema.config.json",
      approvers: { reader: "any-verified-actor" },
    });
    expect(set.approvers).not.toHaveProperty("writer");
    expect(set.agents.reader?.tools?.map((t) => t.name)).toEqual(["read_file", "list_dir"]);
    expect(set.agents.reader).toMatchObject({ instructions: "Only read.", budget: { maxTurns: 5 } });
    expect(set.agents.reader?.approvalPolicy).toBeUndefined();
    expect(set.agents.writer?.tools).toHaveLength(5);
    expect(
      await set.agents.writer?.approvalPolicy?.(
        { name: "write_file", input: {} },
        { taskId: "t", callId: "c", principal: "p" },
      ),
    ).toBe(true);
  });

  it("reads agents defined in code from sema.config.mjs", async () => {
    const cwd = dir();
    writeFileSync(
      join(cwd, "sema.config.mjs"),
      `const model = { id: "inline:echo", async *stream() { yield { type: "text-delta", id: "t", delta: "from code" }; yield { type: "finish", usage: { inputTokens: 1, outputTokens: 1 }, finishReason: "stop" }; } };
       export default { agents: { coder: { model, instructions: "Code." } }, approvers: { coder: "any-verified-actor" } };`,
    );
    const set = await loadAgents(cwd, {}, noModel);
    expect(set).toMatchObject({
      defaultAgent: "coder",
      source: "sema.config.mjs",
      approvers: { coder: "any-verified-actor" },
    });
    expect(set.agents.coder?.model.id).toBe("inline:echo");
  });

  it("says clearly what is wrong with a config, and falls back to the default agent without one", async () => {
    const bad = dir();
    writeFileSync(join(bad, "sema.config.json"), JSON.stringify({ agents: { a: { model: "x:y", tools: ["rm_rf"] } } }));
    await expect(loadAgents(bad, {}, noModel)).rejects.toThrow(/sema.config.json: agents.a.tools.0/);
    const two = dir();
    writeFileSync(
      join(two, "sema.config.json"),
      JSON.stringify({ agents: { a: { model: "script:x" }, b: { model: "script:x" } } }),
    );
    await expect(loadAgents(two, {}, noModel)).rejects.toThrow(/say which agent is the default/);
    const none = dir();
    const script = join(none, "t.json");
    writeFileSync(script, JSON.stringify({ turns: [] }));
    expect(await loadAgents(none, {}, () => `script:${script}`)).toMatchObject({ defaultAgent: "default" });
  });
});
