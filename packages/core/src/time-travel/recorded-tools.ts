/**
 * The tools of a replay: each keeps the definition it has now (name, description, schema,
 * approval rule, effects — what the model is shown and the policy reads) and, instead of running,
 * gives back what the recorded call returned. Nothing runs, nothing is sent anywhere.
 */
import { fencedRange } from "../core/trust-framing.ts";
import type { Tool } from "../ports/tool.ts";
import type { StoredEvent, ToolResultEvent } from "../protocol/task-event.ts";

const ERROR_HEAD = "Error: ";

/** What the tool returned, as the harness received it: the recorded content without the fence it added. */
function returned(result: ToolResultEvent): string {
  const fenced = fencedRange(result.content);
  return fenced === undefined ? result.content : result.content.slice(fenced.start, fenced.end);
}

/** `tools` answering from the recorded results of `events` (the last result of each call). */
export function recordedTools(tools: readonly Tool[], events: readonly StoredEvent[]): Tool[] {
  const results = new Map<string, ToolResultEvent>();
  for (const event of events) if (event.type === "tool_result") results.set(event.callId, event);
  return tools.map(
    (tool): Tool => ({
      ...tool,
      // The recorded text is already cut to size: cutting it again would add a second note.
      maxOutputChars: Number.MAX_SAFE_INTEGER,
      execute: (_input, context) => {
        const result = results.get(context.callId);
        if (result === undefined) throw new Error(`replay: no recorded result for call ${context.callId}`);
        const text = returned(result);
        if (result.status === "error")
          throw new Error(text.startsWith(ERROR_HEAD) ? text.slice(ERROR_HEAD.length) : text);
        return text;
      },
    }),
  );
}
