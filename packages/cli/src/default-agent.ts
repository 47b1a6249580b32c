/** The CLI's default agent: the model asked for, and the file tools confined to one directory. */
import type { Agent, Model } from "@sema-agent/core";
import { createFileTools, type FileToolsOptions, type FileToolsRoot } from "./tools/index.ts";

export const DEFAULT_AGENT_NAME = "default";

const INSTRUCTIONS = `You work in one directory, your working directory. Use the file tools to read, search and change files there; paths outside it are refused. When you are done, answer with a short summary of what you did.`;

/** Tools that change files: a person approves each call unless the run says --yes. */
export const WRITING_TOOLS: ReadonlySet<string> = new Set(["write_file", "append_file"]);

/**
 * The default agent over `model`, its file tools on `root` (a directory, or a resolver that gives
 * each principal or task its own workspace) with `tools` options (e.g. the host's protected files).
 */
export function defaultAgent(
  model: Model,
  root: FileToolsRoot,
  options: { autoApprove?: boolean; tools?: FileToolsOptions } = {},
): Agent {
  const agent: Agent = {
    name: DEFAULT_AGENT_NAME,
    model,
    instructions: INSTRUCTIONS,
    tools: createFileTools(root, options.tools ?? {}),
  };
  if (options.autoApprove !== true) agent.approvalPolicy = (call) => WRITING_TOOLS.has(call.name);
  return agent;
}
