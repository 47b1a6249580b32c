/** The CLI's default agent: the model asked for, and the file tools confined to the working directory. */
import type { Agent, Model } from "@sema-agent/core";
import { createFileTools } from "./tools/index.ts";

export const DEFAULT_AGENT_NAME = "default";

const INSTRUCTIONS = `You work in the directory the user started you in. Use the file tools to read, search and change files there; paths outside it are refused. When you are done, answer with a short summary of what you did.`;

/** Tools that change files: a person approves each call unless the run says --yes. */
export const WRITING_TOOLS: ReadonlySet<string> = new Set(["write_file", "append_file"]);

export function defaultAgent(model: Model, cwd: string, options: { autoApprove?: boolean } = {}): Agent {
  const agent: Agent = { name: DEFAULT_AGENT_NAME, model, instructions: INSTRUCTIONS, tools: createFileTools(cwd) };
  if (options.autoApprove !== true) agent.approvalPolicy = (call) => WRITING_TOOLS.has(call.name);
  return agent;
}
