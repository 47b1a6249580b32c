// Type tests (run by the typecheck): hooks typed by the agent's tools, and RunResult.output typed
// by the output schema.
import { expectTypeOf } from "vitest";
import { z } from "zod";
import { defineTool } from "../harness/tools/define-tool.ts";
import type { Tool } from "../ports/tool.ts";
import type { JsonValue } from "../protocol/json.ts";
import { ScriptedModel } from "../testing/scripted-model.ts";
import type { AgentHandle, PendingApproval, RunResult, ToolCallOf } from "./agent-types.ts";
import { createAgent } from "./create-agent.ts";

const model = new ScriptedModel([]);
const add = defineTool({
  name: "add",
  description: "Add",
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});
const search = defineTool({
  name: "search",
  description: "Search",
  inputSchema: z.object({ query: z.string(), limit: z.number().optional() }),
  execute: ({ query }) => query,
});

type Calls =
  | { readonly callId: string; readonly name: "add"; readonly input: { a: number; b: number } }
  | { readonly callId: string; readonly name: "search"; readonly input: { query: string; limit?: number | undefined } };

expectTypeOf<ToolCallOf<typeof add | typeof search>>().toEqualTypeOf<Calls>();

// beforeTool / afterTool see the union of the agent's tools, inferred from `tools`.
createAgent({
  model,
  tools: [add, search],
  hooks: {
    beforeTool(ctx) {
      expectTypeOf(ctx.call).toEqualTypeOf<Calls>();
      if (ctx.call.name === "add") {
        expectTypeOf(ctx.call.input).toEqualTypeOf<{ a: number; b: number }>();
        return ctx.call.input.a > 10 ? { action: "deny", reason: "too big" } : undefined;
      }
      expectTypeOf(ctx.call.input.query).toBeString();
      return undefined;
    },
    afterTool({ call, result }) {
      expectTypeOf(call).toEqualTypeOf<Calls>();
      expectTypeOf(result.content).toBeString();
      return undefined;
    },
    // The other hooks keep their types.
    afterModel({ text }) {
      expectTypeOf(text).toBeString();
      return undefined;
    },
  },
});

createAgent({
  model,
  tools: [add],
  hooks: {
    beforeTool({ call }) {
      // @ts-expect-error "search" is not one of this agent's tools
      if (call.name === "search") return undefined;
      return undefined;
    },
  },
});

// A tool typed only as `Tool` gives calls with any name and unknown input.
const anyTools: Tool[] = [add, search];
createAgent({
  model,
  tools: anyTools,
  hooks: {
    beforeTool({ call }) {
      expectTypeOf(call.name).toBeString();
      expectTypeOf(call.input).toBeUnknown();
      return undefined;
    },
  },
});

// RunResult.output is typed by the definition's schema, or the run's.
const answer = z.object({ sum: z.number() });
const typed = createAgent({ model, output: answer });
expectTypeOf(typed).toEqualTypeOf<AgentHandle<typeof answer>>();
expectTypeOf(typed.run("x")).resolves.toEqualTypeOf<RunResult<{ sum: number }>>();
expectTypeOf(typed.run("x", { output: z.string() })).resolves.toEqualTypeOf<RunResult<string>>();
expectTypeOf(typed.continue("t")).resolves.toEqualTypeOf<RunResult<{ sum: number }>>();
expectTypeOf(typed.stream("x").result).resolves.toEqualTypeOf<RunResult<{ sum: number }>>();
expectTypeOf<RunResult<{ sum: number }>["output"]>().toEqualTypeOf<{ sum: number } | undefined>();

// Without a schema there is no output.
const plain = createAgent({ model, tools: [add] });
expectTypeOf(plain.run("x")).resolves.toEqualTypeOf<RunResult<undefined>>();
expectTypeOf(plain.run("x", { output: answer })).resolves.toEqualTypeOf<RunResult<{ sum: number }>>();
expectTypeOf(plain.approvals("t")).resolves.toEqualTypeOf<PendingApproval[]>();
expectTypeOf<PendingApproval["input"]>().toEqualTypeOf<JsonValue>();
for await (const delta of plain.stream("x").textStream) expectTypeOf(delta).toBeString();
