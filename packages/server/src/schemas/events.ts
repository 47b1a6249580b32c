/** The event log over HTTP: a page of stored events, or the SSE stream. */
import { z } from "zod";
import { named } from "./registry.ts";

export const EventsQuery = z.strictObject({
  after: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe("Events with seq > after."),
  format: z.enum(["sse", "json"]).optional().describe("`json` for a page of stored events; default SSE."),
  limit: z.coerce.number().int().min(1).max(1000).optional().describe("Page size for `format=json` (default 100)."),
});

export const StoredEvent = named(
  "StoredEvent",
  z.looseObject({ type: z.string(), taskId: z.string(), seq: z.number().int(), at: z.string() }),
  "One event of the session log, exactly as stored (see the TaskEvent union of @sema-agent/core).",
);

export const EventPage = named(
  "EventPage",
  z.object({
    events: z.array(StoredEvent),
    nextAfter: z.number().int().optional().describe("Pass as `after` for the next page; absent when caught up."),
  }),
);
