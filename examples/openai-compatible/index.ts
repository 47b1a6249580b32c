// An OpenAI-compatible server (Ollama, vLLM, LM Studio …) through @sema-agent/ai-sdk: resolveModel
// reads OPENAI_COMPATIBLE_BASE_URL from the environment given. To run offline, the server is a tiny
// fake here (node:http) that streams the chat-completions SSE format: a tool call first, then,
// once the tool's result is in the request, the answer.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { resolveModel } from "@sema-agent/ai-sdk";
import { createAgent, defineTool, jsonSchema } from "@sema-agent/core";

const requests: { messages: { role: string }[]; stream?: boolean }[] = [];
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk: Buffer) => {
    body += chunk.toString();
  });
  req.on("end", () => {
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") return void res.writeHead(404).end();
    const request = JSON.parse(body) as (typeof requests)[number];
    requests.push(request);
    const answered = request.messages.some((message) => message.role === "tool");
    // One chunk per `data:` line, as OpenAI streams them; `[DONE]` ends the stream.
    const chunk = (delta: object, finish: string | null) => ({
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 0,
      model: "fake-model",
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    const chunks = answered
      ? [chunk({ role: "assistant", content: "2 + 3 " }, null), chunk({ content: "= 5" }, "stop")]
      : [
          chunk(
            {
              role: "assistant",
              tool_calls: [
                { index: 0, id: "call_1", type: "function", function: { name: "add", arguments: '{"a":2,' } },
              ],
            },
            null,
          ),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '"b":3}' } }] }, "tool_calls"),
        ];
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (const part of chunks) res.write(`data: ${JSON.stringify(part)}\n\n`);
    res.write(
      `data: ${JSON.stringify({ ...chunk({}, null), choices: [], usage: { prompt_tokens: 12, completion_tokens: 4 } })}\n\n`,
    );
    res.end("data: [DONE]\n\n");
  });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const { port } = server.address() as AddressInfo;

try {
  // Only the environment given is read: here a copy of process.env with the fake's address.
  const env = { ...process.env, OPENAI_COMPATIBLE_BASE_URL: `http://127.0.0.1:${port}/v1` };
  const add = defineTool({
    name: "add",
    description: "Add a and b",
    inputSchema: jsonSchema<{ a: number; b: number }>({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    }),
    execute: ({ a, b }) => a + b,
  });
  const agent = createAgent({ model: resolveModel("openai-compatible:fake-model", env), tools: [add] });
  const result = await agent.run("What is 2 + 3?");
  const call = result.steps[0]?.toolCalls[0];
  if (result.status !== "completed" || result.text !== "2 + 3 = 5")
    throw new Error(`unexpected: ${result.status} ${result.text}`);
  if (call?.name !== "add" || call.result?.content !== "5") throw new Error("the tool call did not run");
  if (requests.length !== 2 || requests.some((request) => request.stream !== true))
    throw new Error("expected two streamed calls");
  // What went over the wire: each request's messages by role, and the call the first answer streamed.
  for (const [index, request] of requests.entries())
    console.log(
      `POST /v1/chat/completions #${index + 1}: ${request.messages.map((message) => message.role).join(", ")}`,
    );
  console.log(`the model called ${call.name}(${JSON.stringify(call.input)}) → ${call.result.content}`);
  console.log(
    `openai-compatible (${requests.length} streamed requests, ${result.usage.inputTokens} input tokens): ${result.text}`,
  );
} finally {
  server.close();
}
