/**
 * `delegateA2A`: a tool that sends a sub-task to a remote A2A agent and waits for its answer,
 * durably. Its options are checked where they are given; the agent card is read at the first
 * call. The call records the message before sending it and the remote task's id as soon as it is
 * known (`ToolContext.checkpoint`), and the tool is idempotent: after a crash the harness re-runs
 * the call, which reattaches to the remote task instead of sending it again.
 */
import { defineTool, type Tool } from "@sema-agent/core";
import { z } from "zod";
import { type DelegateA2AInput, DelegationCall } from "./delegation-call.ts";
import { checkOptions, DEFAULT_TIMEOUT_MS, type DelegateA2AOptions } from "./options.ts";
import { RemoteClient } from "./remote-client.ts";

/** The tool's name when none is given. */
export const DEFAULT_TOOL_NAME = "delegate_a2a";

const inputSchema = z.strictObject({
  message: z.string().min(1).describe("The sub-task for the remote agent, or your answer to the question it asked."),
  taskId: z
    .string()
    .min(1)
    .optional()
    .describe("Only to answer a remote task that asked for more input: that task's id, from its question."),
  contextId: z
    .string()
    .min(1)
    .optional()
    .describe("To continue an earlier exchange with the remote agent: the context id from its answer."),
});

/**
 * A tool that delegates to the A2A agent at `options.url` with the official `@a2a-js/sdk` client
 * (JSON-RPC or HTTP+JSON, as the agent's card offers). Throws a `ConfigError` for bad options.
 * The remote agent's answer (its artifacts' text) is fenced for the model as untrusted; a remote
 * task that asks for input is answered to the model with the question and how to reply; a remote
 * task that fails, is rejected or canceled, or needs credentials is a tool error (`A2AToolError`).
 */
export function delegateA2A<const Name extends string = typeof DEFAULT_TOOL_NAME>(
  options: DelegateA2AOptions<Name>,
): Tool<DelegateA2AInput, Name> {
  checkOptions(options);
  const name = (options.name ?? DEFAULT_TOOL_NAME) as Name;
  const remote = new RemoteClient(options);
  const settings = {
    toolName: name,
    agentUrl: options.url,
    client: () => remote.get(),
    onProgress: options.onProgress,
  };
  const tool = defineTool({
    name,
    description:
      options.description ??
      `Send a sub-task to the remote agent at ${options.url} (A2A) and wait for its answer. Give the whole task in message; the agent sees nothing else of this conversation.`,
    inputSchema,
    untrustedOutput: true,
    // It sends text to the remote agent; the ids of a remote task come from its own output, by design.
    effects: "external",
    // Its message goes over the network to the agent's host (checked against the egress allowlist).
    egress: true,
    egressHosts: [new URL(options.url).hostname],
    untaintedInputs: ["/taskId", "/contextId"],
    // Re-run after a crash is safe: the call resumes from its checkpoints and never sends twice.
    idempotent: true,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(options.needsApproval === undefined ? {} : { needsApproval: options.needsApproval }),
    execute: (input, context) => new DelegationCall(input, context, settings).run(),
  });
  return tool as Tool<DelegateA2AInput, Name>;
}
