/**
 * The MCP tools: `run_<agent>` for each agent, and `send_to_task`, `get_task`, `list_tasks`,
 * `decide_approval`, `cancel_task`. Each calls the same task actions as the `/v1` routes, as the
 * session's caller, so ownership, lanes, approver roles, digests and limits are checked the same.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { StoredEvent } from "@sema-agent/core";
import { z } from "zod";
import { HttpError } from "../http-error.ts";
import { TaskStatus } from "../schemas/common.ts";
import { cancelTaskFor } from "../tasks/cancel-task.ts";
import { createTaskFor } from "../tasks/create-task.ts";
import { decideTaskApproval } from "../tasks/decide-task-approval.ts";
import { listTasksOf, readTaskDetail } from "../tasks/read-task.ts";
import { sendTaskInput } from "../tasks/send-task-input.ts";
import { elicitApprovals } from "./elicit-approvals.ts";
import { progressOf, type ToolExtra } from "./progress.ts";
import type { McpSession } from "./session.ts";
import { taskText } from "./task-text.ts";
import { guarded, toolResult } from "./tool-result.ts";
import { withCallTrace } from "./trace-meta.ts";
import { waitForTask } from "./wait-for-task.ts";

const taskId = z.string().min(1).max(200).describe("The task's id (from run_<agent> or list_tasks).");
const wait = z
  .boolean()
  .optional()
  .describe(
    "Default true: return when the task has ended or waits for a person, with progress notifications meanwhile. False: return the task id at once.",
  );
const waitAfter = z
  .boolean()
  .optional()
  .describe("Default false. True: then wait for the task as run_<agent> does, and return its result.");

/** The task as `get_task` shows it, as a tool result (a failed task is an error result). */
async function taskResult(session: McpSession, id: string): Promise<CallToolResult> {
  const task = await readTaskDetail(session.deps.store, session.caller, id);
  const result = toolResult(taskText(task), task);
  return task.status === "failed" ? { ...result, isError: true } : result;
}

/** Wait for the task (progress, approvals by elicitation when the client can), then its result. */
async function waitedResult(session: McpSession, id: string, extra: ToolExtra, afterSeq: number) {
  const { end } = session;
  const revoked = () => new HttpError(401, "Unauthorized", "the token this MCP session was opened with was revoked");
  return end.wait(async () => {
    if (end.signal.aborted) throw revoked();
    // The client's cancel or the token's revocation ends the wait; progress stops with it.
    const signal = AbortSignal.any([extra.signal, end.signal]);
    const progress = progressOf(extra);
    const onEvent =
      progress === undefined ? undefined : (event: StoredEvent) => (signal.aborted ? undefined : progress(event));
    const scoped = { ...extra, signal };
    try {
      await waitForTask(session.deps, session.caller, id, {
        signal,
        afterSeq,
        ...(onEvent === undefined ? {} : { onEvent }),
        ...(session.canElicit()
          ? { onApprovals: (record) => elicitApprovals(session.deps, session.caller, record, scoped) }
          : {}),
      });
    } catch (error) {
      if (end.signal.aborted) throw revoked();
      throw error;
    }
    if (end.signal.aborted) throw revoked();
    return taskResult(session, id);
  });
}

function agentDescription(session: McpSession, name: string): string {
  const agent = session.deps.agents.get(name);
  const instructions = typeof agent?.instructions === "string" ? agent.instructions.trim() : "";
  const about = instructions === "" ? "" : ` Its instructions: ${instructions.slice(0, 300)}`;
  return `Run a task on the Sema agent "${name}" and return its answer (or, with wait false, its task id). A call that needs approval is asked through elicitation when the client supports it; otherwise the result shows it and decide_approval answers it.${about}`;
}

/** Register every tool of `session` on `server`. */
export function registerTools(server: McpServer, session: McpSession): void {
  const { deps, caller } = session;
  for (const name of deps.agents.names()) {
    server.registerTool(
      `run_${name}`,
      {
        title: `Run ${name}`,
        description: agentDescription(session, name),
        inputSchema: { objective: z.string().min(1).describe("What the task should do."), wait },
      },
      (args, extra) =>
        guarded(async () => {
          const id = await createTaskFor(deps, withCallTrace(caller, extra), {
            objective: args.objective,
            agent: name,
            where: { objective: "arguments.objective", agent: "arguments.agent" },
          });
          if (args.wait === false) return taskResult(session, id);
          return waitedResult(session, id, extra, 0);
        }),
    );
  }

  server.registerTool(
    "send_to_task",
    {
      title: "Send to a task",
      description:
        "Send text to a task on your user lane: a steer while it runs (seen at its next step), a follow-up when it is parked or finished.",
      inputSchema: {
        taskId,
        text: z.string().min(1).describe("The input."),
        policy: z
          .enum(["steer", "queue", "interrupt", "reject"])
          .optional()
          .describe("While a leg runs: steer it (default), queue for after it, interrupt it, or refuse."),
        wait: waitAfter,
      },
    },
    (args, extra) =>
      guarded(async () => {
        const { lastSeq } = await deps.store.getTask(args.taskId).catch(() => ({ lastSeq: 0 }));
        const sent = await sendTaskInput(
          deps,
          withCallTrace(caller, extra),
          args.taskId,
          { text: args.text, ...(args.policy === undefined ? {} : { policy: args.policy }) },
          "arguments",
        );
        if (args.wait !== true) return toolResult(`Input ${sent.inputId}: ${sent.delivery}.`, { ...sent });
        return waitedResult(session, args.taskId, extra, lastSeq);
      }),
  );

  server.registerTool(
    "get_task",
    {
      title: "Get a task",
      description: "A task's status, usage, answer or error, and the calls waiting for approval with their digests.",
      inputSchema: { taskId },
      annotations: { readOnlyHint: true },
    },
    (args) => guarded(() => taskResult(session, args.taskId)),
  );

  server.registerTool(
    "list_tasks",
    {
      title: "List tasks",
      description: "Your tasks, newest first, a page at a time.",
      inputSchema: {
        status: TaskStatus.optional().describe("Only tasks with this status."),
        cursor: z.string().min(1).max(1024).optional().describe("The nextCursor of the previous page."),
        limit: z.number().int().min(1).max(1000).optional().describe("Default 50."),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        const page = await listTasksOf(deps.store, caller, args);
        const lines = page.tasks.map((task) => `${task.taskId} ${task.status} ${task.objective.slice(0, 80)}`);
        return toolResult(lines.length === 0 ? "No tasks." : lines.join("\n"), page);
      }),
  );

  server.registerTool(
    "decide_approval",
    {
      title: "Decide an approval",
      description:
        "Approve or deny a call waiting for approval. The digest must be the one get_task shows: it binds the decision to the exact input.",
      inputSchema: {
        taskId,
        callId: z.string().min(1).max(200).describe("The waiting call's id."),
        digest: z
          .string()
          .regex(/^[0-9a-f]{64}$/, "must be a lowercase hex SHA-256")
          .describe("The call's digest."),
        decision: z.enum(["approve", "deny"]),
        reason: z.string().optional().describe("Recorded with the decision."),
        scope: z
          .enum(["call", "tool-for-task"])
          .optional()
          .describe("`tool-for-task` also allows later calls of this tool in this task."),
        wait: waitAfter,
      },
    },
    (args, extra) =>
      guarded(async () => {
        const { lastSeq } = await deps.store.getTask(args.taskId).catch(() => ({ lastSeq: 0 }));
        const decided = await decideTaskApproval(
          deps,
          withCallTrace(caller, extra),
          args.taskId,
          args.callId,
          {
            decision: args.decision,
            digest: args.digest,
            ...(args.reason === undefined ? {} : { reason: args.reason }),
            ...(args.scope === undefined ? {} : { scope: args.scope }),
          },
          "arguments",
        );
        if (args.wait !== true) return toolResult(`Call ${decided.callId}: ${decided.decision}.`, decided);
        return waitedResult(session, args.taskId, extra, lastSeq);
      }),
  );

  server.registerTool(
    "cancel_task",
    {
      title: "Cancel a task",
      description: "End a task for good, and its children. A task that has already ended is refused.",
      inputSchema: { taskId, reason: z.string().optional() },
      annotations: { destructiveHint: true },
    },
    (args) =>
      guarded(async () => {
        await cancelTaskFor(deps.store, caller, args.taskId, args.reason, "arguments.reason");
        return toolResult(`Task ${args.taskId} cancelled.`, { taskId: args.taskId, cancelled: true });
      }),
  );
}
