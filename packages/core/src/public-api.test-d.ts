// Type tests of the public API's inference, checked by `npm run typecheck` (tsc): what an
// application writes must infer the types it means, and what it must not write must not compile.
import { expectTypeOf } from "vitest";
import { z } from "zod";
import { steerChild } from "./harness/delegation/child-tasks.ts";
import * as rootEntry from "./index.ts";
import {
  type Agent,
  type BeforeToolDecision,
  cancel,
  decideApproval,
  defineTool,
  type HarnessOptions,
  type HookContext,
  type Hooks,
  interrupt,
  isSemaError,
  type JsonSchemaObject,
  jsonSchema,
  type LegOutcome,
  requestResume,
  runLeg,
  type SemaError,
  type SemaErrorCode,
  type Store,
  type StreamEvent,
  sendInput,
  streamLeg,
  type Tool,
  type ToolContext,
  type ToolOutput,
  type ToolResultStatus,
  validateAgent,
  wake,
  wakeAt,
} from "./index.ts";
import type { ModelFailure, ModelFailureCode } from "./model-kit/index.ts";
import { type NodeHost, nodeHost } from "./node/index.ts";
import { LeaseHeldError, type TaskCreatedEvent, taskEventSchema } from "./protocol/index.ts";
import { encodeCursor, type TaskColumns } from "./store-kit.ts";
import { ScriptedModel } from "./testing/scripted-model.ts";
import { sanitizeHumanText } from "./trust/index.ts";

// A tool's input type is inferred from its schema, in execute and in needsApproval.
const search = defineTool({
  name: "search",
  description: "Search",
  inputSchema: z.object({ query: z.string(), limit: z.number().optional() }),
  execute: (input, context) => {
    expectTypeOf(input).toEqualTypeOf<{ query: string; limit?: number | undefined }>();
    expectTypeOf(context).toEqualTypeOf<ToolContext>();
    return `found ${input.query}`;
  },
  needsApproval: (input) => {
    expectTypeOf(input.query).toBeString();
    return input.limit === undefined;
  },
});
// The name stays literal, so hooks can be typed by an agent's tools (createAgent).
expectTypeOf(search).toEqualTypeOf<Tool<{ query: string; limit?: number | undefined }, "search">>();
// A specific tool is still a Tool, so agents take a list of different tools.
expectTypeOf(search).toExtend<Tool>();
const agentTools: Agent["tools"] = [search];
void agentTools;

defineTool({
  name: "bad",
  description: "returns a function",
  inputSchema: z.object({}),
  // @ts-expect-error a tool's output is a string or JSON, not a function
  execute: () => () => 1,
});
expectTypeOf<ToolOutput>().toExtend<string | object | number | boolean | null>();

// A plain JSON Schema types the input as JSON; `jsonSchema<T>(...)` types it as T. Both are Tools.
const rawJson = defineTool({
  name: "raw",
  description: "a raw JSON Schema",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  execute: (input) => {
    expectTypeOf(input).toEqualTypeOf<JsonSchemaObject>();
    return "ok";
  },
});
expectTypeOf(rawJson).toExtend<Tool>();
const wrapped = defineTool({
  name: "wrapped",
  description: "a typed JSON Schema",
  inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } } }),
  execute: (input) => {
    expectTypeOf(input).toEqualTypeOf<{ city: string }>();
    return input.city;
  },
});
// The literal name is kept (hooks typed by the tools rely on it).
expectTypeOf(wrapped).toEqualTypeOf<Tool<{ city: string }, "wrapped">>();
// validateAgent takes anything (a config file's value) and narrows it to an Agent.
expectTypeOf(validateAgent).parameter(0).toBeUnknown();

// Hooks: every hook takes one context (the shared fields plus its subject), whose state is read-only.
const hooks: Hooks = {
  beforeTool: (context) => {
    expectTypeOf(context.call.name).toBeString();
    expectTypeOf(context).toExtend<HookContext>();
    return context.call.name === "rm" ? { action: "deny", reason: "no" } : undefined;
  },
  afterTool: ({ call, result }) => {
    expectTypeOf(call.callId).toBeString();
    expectTypeOf(result.status).toEqualTypeOf<ToolResultStatus>();
    return undefined;
  },
  beforeModel: (context) => {
    expectTypeOf(context.taskId).toBeString();
    expectTypeOf(context).toExtend<HookContext>();
    return { feedback: "be brief" };
  },
  onStop: ({ state, text }) => {
    expectTypeOf(text).toBeString();
    // @ts-expect-error the state a hook sees is read-only, at every depth
    state.transcript.push({ role: "user", content: "forged" });
    // @ts-expect-error not even its top-level fields may be reassigned
    state.objective = "something else";
    return undefined;
  },
};
void hooks;
// @ts-expect-error a denial needs its reason
const noReason: BeforeToolDecision = { action: "deny" };
void noReason;

// Errors: isSemaError narrows to the code asked for; codes are a closed union.
const caught: unknown = new Error("x");
if (isSemaError(caught, "LeaseHeld")) {
  expectTypeOf(caught).toExtend<SemaError>();
  expectTypeOf(caught.code).toEqualTypeOf<"LeaseHeld">();
  expectTypeOf(caught.isRetryable).toBeBoolean();
}
// @ts-expect-error not a Sema error code
isSemaError(caught, "NoSuchCode");
expectTypeOf<"TaskFinished">().toExtend<SemaErrorCode>();

// A leg's outcome and the ingress treatment; failure codes are closed unions, not strings.
expectTypeOf(runLeg).returns.resolves.toEqualTypeOf<LegOutcome>();
expectTypeOf<NonNullable<LegOutcome["error"]>["code"]>().toEqualTypeOf<SemaErrorCode>();
expectTypeOf<ModelFailure["code"]>().toEqualTypeOf<ModelFailureCode>();
expectTypeOf(streamLeg).returns.toExtend<AsyncIterable<StreamEvent>>();
expectTypeOf(streamLeg).returns.toHaveProperty("outcome").resolves.toEqualTypeOf<LegOutcome>();

// One argument order: the store (or the harness options carrying it), the task id, one options object.
expectTypeOf(runLeg).parameter(1).toBeString();
expectTypeOf(streamLeg).parameters.toEqualTypeOf<Parameters<typeof runLeg>>();
for (const operation of [sendInput, interrupt, cancel, requestResume, wake, wakeAt, decideApproval, steerChild]) {
  expectTypeOf(operation).parameter(0).toEqualTypeOf<Store>();
  expectTypeOf(operation).parameter(1).toBeString();
}
expectTypeOf(decideApproval).parameters.toHaveProperty("length").toEqualTypeOf<3>();
expectTypeOf(steerChild).parameter(2).toEqualTypeOf<{ parentTaskId: string; text: string }>();
expectTypeOf(sanitizeHumanText)
  .parameter(1)
  .toEqualTypeOf<"user" | "supervisor" | "operator" | "external" | "system">();

// The subpaths by audience: the root has no store helper, event schema, Node holder, vendor price,
// model adapter's helper, host's quota machinery or provenance internals.
// @ts-expect-error store helpers are on ./store-kit
void rootEntry.encodeCursor;
// @ts-expect-error error classes other than SemaError are on ./protocol
void rootEntry.LeaseHeldError;
// @ts-expect-error the event schemas are on ./protocol
void rootEntry.taskEventSchema;
// @ts-expect-error the lease identity of a Node process is on ./node (nodeHolder)
void rootEntry.defaultHolder;
// @ts-expect-error vendor prices are on @sema-agent/ai-sdk
void rootEntry.DEFAULT_PRICES;
// @ts-expect-error a model adapter's retry decorator is on ./model-kit
void rootEntry.withRetry;
// @ts-expect-error a host's quota gate is on ./quotas
void rootEntry.quotaGateFor;
// @ts-expect-error the classification of a call by provenance is on ./trust
void rootEntry.classifyToolCall;
// @ts-expect-error the ingress's text treatment is on ./trust
void rootEntry.sanitizeHumanText;
expectTypeOf(encodeCursor).returns.toBeString();
expectTypeOf<TaskColumns["task_id"]>().toBeString();
expectTypeOf(new LeaseHeldError("t", { id: "h" }, "2026-01-01T00:00:00.000Z")).toExtend<SemaError>();
expectTypeOf(taskEventSchema.parse({})).toExtend<{ type: string }>();
expectTypeOf<TaskCreatedEvent["type"]>().toEqualTypeOf<"task_created">();
// A Node host spreads nodeHost() into runLeg's options.
expectTypeOf(nodeHost()).toEqualTypeOf<NodeHost>();
expectTypeOf<NodeHost>().toExtend<Required<Pick<HarnessOptions, "holder" | "holderDied">>>();

// Settings and structured output (issue 15): one public form of the tool choice, the output schema
// as any Standard Schema or a plain JSON Schema, instructions from the read-only folded state.
const settled: Agent = {
  model: { id: "m", stream: () => ({ async *[Symbol.asyncIterator]() {} }) },
  toolChoice: { type: "tool", toolName: "search" },
  providerOptions: { openai: { store: false } },
  output: z.strictObject({ answer: z.string() }),
  instructions: (state) => `You work for ${state.principal}.`,
  standingInstructions: false,
};
expectTypeOf(settled.toolChoice).toEqualTypeOf<rootEntry.ToolChoice | undefined>();
const plainOutput: Agent["output"] = { type: "object", properties: { answer: { type: "string" } } };
void plainOutput;
// @ts-expect-error a bare tool name is not a tool choice (it could be mistaken for a mode)
const bareName: Agent["toolChoice"] = "search";
void bareName;
// @ts-expect-error the folded state given to instructions is read-only
const mutating: Agent["instructions"] = (state) => String(state.legs++);
void mutating;
// One call: createAgent from the root, its handle and result typed from the definition.
const rootAgent = rootEntry.createAgent({ model: new ScriptedModel([]), tools: [search] });
expectTypeOf(rootAgent).toEqualTypeOf<rootEntry.AgentHandle>();
expectTypeOf(rootAgent.run("x")).resolves.toEqualTypeOf<rootEntry.RunResult<undefined>>();
expectTypeOf<rootEntry.AgentDefinition["store"]>().toEqualTypeOf<Store | undefined>();
