/**
 * The handle's hooks → the harness's: `beforeTool` and `afterTool` are typed by the agent's tools,
 * so they are called only with a call that fits that type — one of those tools, its input
 * validated by the tool's schema. Any other call skips them (it fails in the tool phase anyway:
 * an unknown tool, or input the schema refuses, never runs).
 */
import type { Hooks } from "../harness/hooks/hooks.ts";
import type { Tool } from "../ports/tool.ts";
import type { ToolCall } from "../protocol/transcript.ts";
import type { AgentHooks, ToolCallOf } from "./agent-types.ts";

/** The call typed for the hooks, or undefined when it is no valid call of one of `tools`. */
async function typedCall<T extends Tool>(
  tools: ReadonlyMap<string, T>,
  call: ToolCall,
): Promise<ToolCallOf<T> | undefined> {
  const tool = tools.get(call.name);
  if (tool === undefined) return undefined;
  const checked = await tool.inputSchema["~standard"].validate(call.input);
  if (checked.issues !== undefined) return undefined;
  // The arm of `tool`: its name and its schema's output, which is what `ToolCallOf` says.
  return { callId: call.callId, name: call.name, input: checked.value } as ToolCallOf<T>;
}

/** The harness hooks for a definition's typed hooks. */
export function harnessHooks<T extends Tool>(tools: readonly T[], hooks: AgentHooks<T>): Hooks {
  const { beforeTool, afterTool, ...rest } = hooks;
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const out: Hooks = { ...rest };
  if (beforeTool !== undefined) {
    out.beforeTool = async (context) => {
      const call = await typedCall(byName, context.call);
      return call === undefined ? undefined : beforeTool.call(hooks, { ...context, call });
    };
  }
  if (afterTool !== undefined) {
    out.afterTool = async (context) => {
      const call = await typedCall(byName, context.call);
      return call === undefined ? undefined : afterTool.call(hooks, { ...context, call });
    };
  }
  return out;
}
