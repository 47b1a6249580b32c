/**
 * LangGraph.js: the prebuilt ReAct agent graph (`createReactAgent` from
 * `@langchain/langgraph/prebuilt`) compiled once per process and invoked per task (a thread), on a
 * fake tool-calling chat model (a `BaseChatModel` whose `bindTools` returns itself, the pattern of
 * LangGraph's own tests). In memory (no checkpointer) and on `SqliteSaver` from
 * `@langchain/langgraph-checkpoint-sqlite` (the durable variant).
 */
import { randomUUID } from "node:crypto";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { tool } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { z } from "zod";
import { type Adapter, callsAt, FINAL_TEXT, lookupResult, OBJECTIVE, type TaskShape, TURN_TEXT } from "../workloads.ts";

const lookup = tool(async ({ key }) => lookupResult(key), {
  name: "lookup",
  description: "Look a key up",
  schema: z.object({ key: z.string() }),
});

/**
 * Answers from the script. Stateless, so one compiled graph serves every task: the turn is read
 * off the transcript's length (a human message, then per turn an AI message and its tool results).
 */
class ScriptedChatModel extends BaseChatModel {
  shape: TaskShape | undefined;
  onCall: (() => void) | undefined;

  constructor(shape: TaskShape | undefined, onCall?: () => void) {
    super({});
    this.shape = shape;
    this.onCall = onCall;
  }

  _llmType(): string {
    return "scripted";
  }

  override bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.onCall?.();
    const shape = this.shape;
    const calls = shape === undefined ? [] : callsAt(shape, (messages.length - 1) / (shape.toolCallsPerTurn + 1));
    const message =
      calls.length === 0
        ? new AIMessage(FINAL_TEXT)
        : new AIMessage({
            content: TURN_TEXT,
            tool_calls: calls.map((call) => ({
              id: call.id,
              name: "lookup",
              args: { key: call.key },
              type: "tool_call" as const,
            })),
          });
    return { generations: [{ message, text: typeof message.content === "string" ? message.content : "" }] };
  }
}

function graph(shape: TaskShape | undefined, checkpointer?: BaseCheckpointSaver, onCall?: () => void) {
  const llm = new ScriptedChatModel(shape, onCall);
  return createReactAgent(
    checkpointer === undefined ? { llm, tools: [lookup] } : { llm, tools: [lookup], checkpointer },
  );
}

/** A graph per task shape, compiled once (the shape only tells the fake model what to answer). */
function graphsFor(checkpointer?: BaseCheckpointSaver) {
  const graphs = new Map<string, ReturnType<typeof graph>>();
  return async (shape: TaskShape): Promise<string> => {
    const key = `${shape.turns}x${shape.toolCallsPerTurn}`;
    let compiled = graphs.get(key);
    if (compiled === undefined) {
      compiled = graph(shape, checkpointer);
      graphs.set(key, compiled);
    }
    const threadId = randomUUID();
    const state = await compiled.invoke(
      { messages: [new HumanMessage(OBJECTIVE)] },
      { configurable: { thread_id: threadId }, recursionLimit: shape.turns * 2 + 2 },
    );
    const messages = state.messages as BaseMessage[];
    const expected = 1 + (shape.turns - 1) * (shape.toolCallsPerTurn + 1) + 1;
    if (messages.length !== expected || messages.at(-1)?.content !== FINAL_TEXT)
      throw new Error(`LangGraph: ${messages.length} messages, expected ${expected}`);
    return threadId;
  };
}

/** LangGraph's adapter. */
export const adapter: Adapter = {
  name: "LangGraph ReAct",
  usage:
    "`@langchain/langgraph` 1.7: `createReactAgent({ llm, tools: [lookup] })` compiled once, `graph.invoke({ messages }, { configurable: { thread_id }, recursionLimit })` per task; the model a `BaseChatModel` subclass whose `bindTools` returns itself; durable: the same graph with `checkpointer: SqliteSaver.fromConnString(file)` (default durability).",
  createRunner() {
    const run = graphsFor();
    return {
      async runTask(shape) {
        await run(shape);
      },
    };
  },
  durable: {
    open(file) {
      const saver = SqliteSaver.fromConnString(file);
      return {
        runTask: graphsFor(saver),
        async close() {
          saver.db.close();
        },
      };
    },
    async resume(file, threadId) {
      const start = performance.now();
      const saver = SqliteSaver.fromConnString(file);
      let firstCall: number | undefined;
      const compiled = graph(undefined, saver, () => {
        firstCall ??= performance.now();
      });
      const state = await compiled.invoke(
        { messages: [new HumanMessage("One more thing.")] },
        { configurable: { thread_id: threadId } },
      );
      saver.db.close();
      if (firstCall === undefined || (state.messages as BaseMessage[]).at(-1)?.content !== FINAL_TEXT)
        throw new Error("LangGraph: the resumed run did not answer");
      return { opened: start, firstCall };
    },
  },
};
