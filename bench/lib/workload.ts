/**
 * The events the benchmarks write: what one tool-using model turn leaves in the log — the turn
 * with its tool call, the call starting, its result — in that order, repeated.
 */
import type { TaskEvent } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";

const TEXT = "I'll open the configuration file to check which port the server listens on, then update the test.";
const FILE = 'export const config = {\n  port: 8080,\n  host: "127.0.0.1",\n  retries: 3,\n};\n'.repeat(4);

/** `count` events cycling through model_turn (one tool call), tool_call_started, tool_result. */
export function realisticEvents(count: number): TaskEvent[] {
  const events: TaskEvent[] = [];
  for (let i = 0; events.length < count; i++) {
    const callId = `call_${i}`;
    const input = { path: "src/config.ts", startLine: 1, endLine: 40 };
    events.push(make.turn(i + 1, TEXT, [{ callId, name: "read_file", input }]));
    if (events.length < count) events.push(make.toolStarted(callId, "read_file"));
    if (events.length < count) events.push(make.toolResult(callId, FILE, "read_file"));
  }
  return events;
}

/** Mean size of the events as JSON, bytes: what "bytes on disk per event" compares against. */
export function meanJsonBytes(events: readonly TaskEvent[]): number {
  let total = 0;
  for (const event of events) total += Buffer.byteLength(JSON.stringify(event));
  return total / events.length;
}
