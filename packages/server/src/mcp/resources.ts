/**
 * The MCP resources: `sema://tasks/{taskId}`, a task's transcript (what its model sees), and
 * `sema://tasks/{taskId}/events`, its log as stored, a page at a time (`?after=seq`). Listing
 * shows the caller's latest tasks; a task of another principal reads exactly like a missing one.
 */
import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError, type ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { loadTaskState } from "@sema-agent/core";
import { toHttpError } from "../http-error.ts";
import { ownTask } from "../tasks/own-task.ts";
import { listTasksOf } from "../tasks/read-task.ts";
import type { McpSession } from "./session.ts";

/** Events per page of `sema://tasks/{taskId}/events`. */
export const EVENTS_PAGE = 500;

const LISTED_TASKS = 50;

function one(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value) ?? "";
}

/** A failed read as an MCP error carrying the API's code (never a stack). */
async function reading(work: () => Promise<ReadResourceResult>): Promise<ReadResourceResult> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof McpError) throw error;
    const http = toHttpError(error);
    if (http.code === "Internal") console.error("sema mcp: unhandled error", error);
    const code =
      http.status === 404
        ? ErrorCode.InvalidParams
        : http.status < 500
          ? ErrorCode.InvalidRequest
          : ErrorCode.InternalError;
    throw new McpError(code, `${http.code}: ${http.message}`, http.body().error);
  }
}

function json(uri: string, value: unknown): ReadResourceResult {
  return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(value) }] };
}

/** Register the task resources of `session` on `server`. */
export function registerResources(server: McpServer, session: McpSession): void {
  const { store } = session.deps;
  const { caller } = session;

  server.registerResource(
    "task",
    new ResourceTemplate("sema://tasks/{taskId}", {
      list: async () => {
        const page = await listTasksOf(store, caller, { limit: LISTED_TASKS });
        return {
          resources: page.tasks.map((task) => ({
            uri: `sema://tasks/${task.taskId}`,
            name: `task ${task.taskId}`,
            description: `${task.status}: ${task.objective.slice(0, 120)}`,
            mimeType: "application/json",
          })),
        };
      },
    }),
    {
      title: "Task transcript",
      description: "A task's objective, status and transcript (what its model sees), as JSON.",
      mimeType: "application/json",
    },
    (uri, variables) =>
      reading(async () => {
        const id = one(variables.taskId);
        const record = await ownTask(store, id, caller);
        const state = await loadTaskState(store, id);
        return json(uri.href, {
          taskId: id,
          objective: state.objective,
          status: record.summary.status,
          transcript: state.transcript,
        });
      }),
  );

  const readEvents = (uri: URL, variables: Record<string, string | string[]>) =>
    reading(async () => {
      const id = one(variables.taskId);
      const afterText = one(variables.after);
      const after = afterText === "" ? 0 : Number(afterText);
      if (!Number.isSafeInteger(after) || after < 0)
        throw new McpError(ErrorCode.InvalidParams, "after must be the seq of a stored event");
      await ownTask(store, id, caller);
      const read = await store.read(id, { afterSeq: after, limit: EVENTS_PAGE + 1 });
      const events = read.slice(0, EVENTS_PAGE);
      const last = events.at(-1);
      return json(
        uri.href,
        read.length > EVENTS_PAGE && last !== undefined ? { events, nextAfter: last.seq } : { events },
      );
    });
  const eventsMetadata = {
    title: "Task event log",
    description: `A task's events exactly as stored, ${EVENTS_PAGE} at a time; \`?after=<seq>\` reads the next page (\`nextAfter\`).`,
    mimeType: "application/json",
  };
  // Two templates: the SDK's matcher does not take `{?after}` as optional.
  server.registerResource(
    "task-events",
    new ResourceTemplate("sema://tasks/{taskId}/events", { list: undefined }),
    eventsMetadata,
    readEvents,
  );
  server.registerResource(
    "task-events-page",
    new ResourceTemplate("sema://tasks/{taskId}/events{?after}", { list: undefined }),
    eventsMetadata,
    readEvents,
  );
}
