/**
 * The body of an AG-UI run: `RunAgentInput`, validated by the protocol's own schema from
 * `@ag-ui/core` (open objects, as the protocol defines them: a newer client's extra fields pass),
 * and the path that names the agent.
 */
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import { z } from "zod";
import { idSchema } from "../schemas/common.ts";
import { named } from "../schemas/registry.ts";

/** The run's body: the protocol's own schema, registered for the OpenAPI document. */
export const AgUiRunInput = named(
  "AgUiRunAgentInput",
  RunAgentInputSchema,
  "AG-UI's RunAgentInput: `threadId` is the task, `messages` the client's conversation (its trailing user messages are the new input, its tool messages the results of frontend tool calls), `tools` the frontend tools, `resume` the answers to the interrupts (approvals) the last run ended with.",
);

/** The run's body as validated. */
export type AgUiRunInputBody = z.output<typeof AgUiRunInput>;

/** The path: the agent's name. */
export const AgentParams = z.strictObject({ name: idSchema });

/** One message of the client's conversation, as validated. */
export type AgUiMessage = AgUiRunInputBody["messages"][number];
/** One frontend tool, as validated. */
export type AgUiTool = AgUiRunInputBody["tools"][number];
/** One answer to an interrupt, as validated. */
export type AgUiResumeEntry = NonNullable<AgUiRunInputBody["resume"]>[number];
