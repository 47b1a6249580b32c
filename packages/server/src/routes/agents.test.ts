import { defineTool } from "@sema-agent/core";
import { createAgentRegistry } from "@sema-agent/worker";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentInfo, AgentList } from "../schemas/agents.ts";
import { apiFixture, json, scriptedAgent } from "../test-support/api-fixture.ts";

const lookup = defineTool({
  name: "lookup",
  description: "Look a word up",
  inputSchema: z.object({ word: z.string().min(1) }),
  readOnly: true,
  execute: ({ word }) => word,
});

const send = defineTool({
  name: "send",
  description: "Send mail",
  inputSchema: z.object({ to: z.string() }),
  effects: "external",
  needsApproval: (input) => input.to.endsWith("@example.com"),
  execute: () => "sent",
});

describe("GET /v1/agents", () => {
  it("shows each served agent's model, tools with their JSON Schemas, policies and limits, no secrets", async () => {
    const writer = {
      ...scriptedAgent([{ text: "done" }]),
      instructions: "Write tersely.",
      tools: [lookup, send],
      budget: { maxTurns: 5, prices: { inline: { input: 1, output: 1 } } },
      provenancePolicy: { minChars: 32 },
      approvalPolicy: () => false,
    };
    const fx = await apiFixture({
      app: {
        agents: createAgentRegistry({ writer, plain: scriptedAgent([{ text: "done" }]) }, "writer"),
        approvers: { agents: { plain: "any-verified-actor" } },
        quotas: { default: { tokensPerDay: 1000 } },
      },
    });
    const response = await fx.call("GET", "/v1/agents");
    expect(response.status).toBe(200);
    const text = await response.clone().text();
    const { agents } = AgentList.parse(await json(response));
    expect(agents.map((agent) => [agent.name, agent.default])).toEqual([
      ["writer", true],
      ["plain", false],
    ]);
    const [info, plain] = agents;
    expect(info).toMatchObject({
      model: "script:inline",
      instructions: "Write tersely.",
      budget: { maxTurns: 5 },
      quotas: { tokensPerDay: 1000 },
      delegates: false,
      policies: { approvers: "approver-role", approvalPolicy: true, provenance: { minChars: 32 } },
    });
    expect(info?.tools).toEqual([
      {
        name: "lookup",
        description: "Look a word up",
        inputSchema: lookup.jsonSchema,
        effects: "none",
        needsApproval: false,
      },
      {
        name: "send",
        description: "Send mail",
        inputSchema: send.jsonSchema,
        effects: "external",
        needsApproval: "policy",
      },
    ]);
    expect(info?.tools[0]?.inputSchema).toMatchObject({ type: "object", properties: { word: { type: "string" } } });
    expect(plain?.policies.approvers).toBe("any-verified-actor");
    // Prices stay out, and so does anything not picked (the model object, hooks).
    expect(text).not.toContain("prices");
    expect(text).not.toContain("generate");

    const one = await fx.call("GET", "/v1/agents/plain");
    expect(AgentInfo.parse(await json(one)).name).toBe("plain");
  });

  it("is a 404 for an agent not served, a 400 for a bad name, a 401 without credentials", async () => {
    const fx = await apiFixture();
    expect((await fx.call("GET", "/v1/agents/nobody")).status).toBe(404);
    expect((await fx.call("GET", "/v1/agents/..%2Fx")).status).toBe(400);
    expect((await fx.call("GET", "/v1/agents", { token: null })).status).toBe(401);
  });
});
