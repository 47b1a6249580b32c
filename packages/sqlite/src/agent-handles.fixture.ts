/**
 * The agents of the cross-process `createAgent` tests, shared by the test and its child process:
 * by-transcript scripts, so whichever process runs the next leg plays the next turn.
 */
import { createAgent, defineTool } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { z } from "zod";
import type { SqliteStore } from "./sqlite-store.ts";

/** A chat: an answer, then the answer to a follow-up. */
export function chatAgent(store: SqliteStore) {
  const model = new ScriptedModel([{ text: "Paris." }, { text: "About 2.1 million." }], { mode: "by-transcript" });
  return createAgent({ model, store });
}

/** A deploy that needs approval; `runs` lists what this process deployed. */
export function deployAgent(store: SqliteStore) {
  const runs: string[] = [];
  const deploy = defineTool({
    name: "deploy",
    description: "Deploy a service",
    inputSchema: z.object({ service: z.string() }),
    needsApproval: true,
    execute: ({ service }) => {
      runs.push(service);
      return `deployed ${service}`;
    },
  });
  const model = new ScriptedModel(
    [{ toolCalls: [{ name: "deploy", input: { service: "api" } }] }, { text: "Deployed." }],
    { mode: "by-transcript" },
  );
  return { agent: createAgent({ model, store, tools: [deploy] }), runs };
}
