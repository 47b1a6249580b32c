/**
 * Helpers for the file tools' tests (not a test file itself, so vitest does not collect it): real
 * temporary directories and a harness-like way to call a tool.
 */
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Tool, ToolContext, ToolOutput } from "@sema-agent/core";

/** A scratch area: `root` (the tools' working directory) beside `outside` and `root-evil`. */
export interface Sandbox {
  /** The real path of the temporary directory holding the three below. */
  base: string;
  root: string;
  outside: string;
  /** A sibling whose name starts with the root's: the prefix trap. */
  evil: string;
  cleanup(): Promise<void>;
}

/** Creates a fresh sandbox under the OS's temporary directory. */
export async function createSandbox(): Promise<Sandbox> {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), "sema-tools-")));
  const root = path.join(base, "root");
  const outside = path.join(base, "outside");
  const evil = path.join(base, "root-evil");
  await Promise.all([mkdir(root), mkdir(outside), mkdir(evil)]);
  return { base, root, outside, evil, cleanup: () => rm(base, { recursive: true, force: true }) };
}

/** A tool context with `signal` (a fresh, never-aborted one by default). */
export function toolContext(signal: AbortSignal = new AbortController().signal): ToolContext {
  return { signal, taskId: "task-1", legId: "leg-1", callId: "call-1", attempt: 1, principal: "tester" };
}

/**
 * Calls `tool` the way the harness does: `raw` is validated (and defaulted) by the tool's input
 * schema first, and a schema failure throws.
 */
export async function callTool(tool: Tool, raw: unknown, signal?: AbortSignal): Promise<ToolOutput> {
  const result = await tool.inputSchema["~standard"].validate(raw);
  if (result.issues !== undefined) {
    throw new TypeError(`invalid input: ${result.issues.map((issue) => issue.message).join("; ")}`);
  }
  return tool.execute(result.value, toolContext(signal));
}

/** An already-aborted signal. */
export function abortedSignal(): AbortSignal {
  const controller = new AbortController();
  controller.abort(new Error("cancelled by the test"));
  return controller.signal;
}
