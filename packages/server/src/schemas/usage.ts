/** The response of `GET /v1/usage`: the caller's principal's usage, its quotas and their windows. */
import { quotasSchema } from "@sema-agent/core/quotas";
import { z } from "zod";
import { named } from "./registry.ts";

const windowUsage = (what: string) =>
  z
    .object({
      since: z.string().describe("ISO-8601: where the window starts."),
      tokens: z.number().int().describe("Input and output tokens of every model turn counted in the window."),
      costUsd: z.number().describe("Those tokens at the server's prices (a model without a price costs nothing)."),
    })
    .describe(what);

export const UsageResponse = named(
  "UsageResponse",
  z.object({
    principal: z.string(),
    at: z.string().describe("ISO-8601: the moment the windows are read at (the server's clock)."),
    day: windowUsage("The rolling day: the last 24 whole hours (UTC), this one included."),
    month: windowUsage("The calendar month (UTC)."),
    activeTasks: z
      .number()
      .int()
      .describe("Root tasks created and not started, or running: what concurrentTasks counts."),
    quotas: quotasSchema.describe("The principal's quotas on this server (empty: none)."),
  }),
);
