/**
 * The naive loop: what an agent without frames or a policy does. The prompt, any relayed text and
 * every tool output go to the model as they are (plain concatenation, no fences, no standing
 * instructions), and every call the model makes runs. It drives the same `Model` port as Sema, so
 * the scripted models and a real provider see the same tools in all three conditions. (The AI
 * SDK's `ToolLoopAgent` over the same tools behaves alike; this loop needs no second model adapter.)
 */
import type { JsonValue, Model, Tool } from "@sema-agent/core";
import type { ModelRequest } from "@sema-agent/core/model-kit";
import type { TranscriptEntry } from "@sema-agent/core/protocol";

/** What a run of one condition gives back: the final answer and how many approvals it asked for. */
export interface ConditionRun {
  answer: string;
  approvals: number;
}

/** A run's inputs: the model, the tools, the objective, text relayed on the external lane, a step cap. */
export interface LoopInput {
  model: Model;
  tools: readonly Tool[];
  prompt: string;
  external?: string;
  maxSteps: number;
}

const SYSTEM = "You are a helpful assistant. Use the tools to do the user's task.";

async function runTool(tool: Tool | undefined, name: string, raw: string, signal: AbortSignal): Promise<string> {
  if (tool === undefined) return `Error: no tool ${name}`;
  let input: unknown;
  try {
    input = JSON.parse(raw);
  } catch {
    return "Error: the arguments are not JSON";
  }
  const checked = await tool.inputSchema["~standard"].validate(input);
  if (checked.issues !== undefined) return `Error: ${checked.issues.map((i) => i.message).join("; ")}`;
  try {
    const output = await tool.execute(checked.value, {
      signal,
      taskId: "naive",
      legId: "naive",
      callId: name,
      attempt: 1,
      principal: "local",
    });
    return typeof output === "string" ? output : JSON.stringify(output);
  } catch (error) {
    return `Error: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Run the naive loop to its final answer (or the step cap). */
export async function runNaiveLoop(input: LoopInput): Promise<ConditionRun> {
  const signal = new AbortController().signal;
  const transcript: TranscriptEntry[] = [{ role: "user", entryId: "prompt", content: input.prompt }];
  if (input.external !== undefined) transcript.push({ role: "user", entryId: "external", content: input.external });
  const tools = input.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.jsonSchema }));
  for (let step = 0; step < input.maxSteps; step += 1) {
    const request: ModelRequest = { system: SYSTEM, transcript: [...transcript], tools };
    let text = "";
    const calls: { callId: string; name: string; raw: string }[] = [];
    for await (const part of input.model.stream(request, signal)) {
      if (part.type === "text-delta") text += part.delta;
      else if (part.type === "tool-call") calls.push({ callId: part.toolCallId, name: part.toolName, raw: part.input });
      else if (part.type === "error") throw new Error(`model failed: ${part.failure.message}`);
    }
    const toolCalls = calls.map((c) => ({ callId: c.callId, name: c.name, input: parsed(c.raw) }));
    transcript.push({ role: "assistant", text, toolCalls });
    if (calls.length === 0) return { answer: text, approvals: 0 };
    for (const call of calls) {
      const tool = input.tools.find((t) => t.name === call.name);
      const content = await runTool(tool, call.name, call.raw, signal);
      transcript.push({ role: "tool", callId: call.callId, name: call.name, status: "ok", content });
    }
  }
  return { answer: "", approvals: 0 };
}

function parsed(raw: string): JsonValue {
  try {
    return JSON.parse(raw) as JsonValue;
  } catch {
    return raw;
  }
}
