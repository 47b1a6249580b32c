import type { ModelRequest } from "@sema-agent/core/model-kit";
import { describe, expect, it } from "vitest";
import { toCallOptions, toPrompt } from "./to-call-options.ts";

function request(transcript: ModelRequest["transcript"], system = "sys"): ModelRequest {
  return { system, transcript, tools: [] };
}

describe("toPrompt", () => {
  it("leaves out an empty system prompt", () => {
    expect(toPrompt(request([{ role: "user", entryId: "e", content: "hi" }], ""))).toEqual([
      { role: "user", content: [{ type: "text", text: "hi" }] },
    ]);
  });

  it("passes every string byte for byte", () => {
    const framed = '[from "ana" (unverified)]\n  <tool-output nonce="x">\r\n</tool-output>\u0000 ';
    const prompt = toPrompt(
      request(
        [
          { role: "user", entryId: "e", content: framed },
          { role: "assistant", text: framed, toolCalls: [] },
          { role: "tool", callId: "c", name: "t", status: "ok", content: framed },
        ],
        framed,
      ),
    );
    expect(prompt).toEqual([
      { role: "system", content: framed },
      { role: "user", content: [{ type: "text", text: framed }] },
      { role: "assistant", content: [{ type: "text", text: framed }] },
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "c", toolName: "t", output: { type: "text", value: framed } }],
      },
    ]);
  });

  it("orders an assistant turn as reasoning, text, then tool calls with parsed inputs", () => {
    const prompt = toPrompt(
      request([
        {
          role: "assistant",
          reasoning: "think",
          text: "doing it",
          toolCalls: [
            { callId: "a", name: "read", input: { path: "/x" } },
            { callId: "b", name: "raw", input: "not json" },
          ],
        },
      ]),
    );
    expect(prompt[1]).toEqual({
      role: "assistant",
      content: [
        { type: "reasoning", text: "think" },
        { type: "text", text: "doing it" },
        { type: "tool-call", toolCallId: "a", toolName: "read", input: { path: "/x" } },
        { type: "tool-call", toolCallId: "b", toolName: "raw", input: { invalid_arguments: "not json" } },
      ],
    });
  });

  it("drops an assistant turn that said nothing, and empty text or reasoning", () => {
    expect(toPrompt(request([{ role: "assistant", text: "", reasoning: "", toolCalls: [] }]))).toEqual([
      { role: "system", content: "sys" },
    ]);
    const onlyCalls = toPrompt(
      request([{ role: "assistant", text: "", reasoning: "", toolCalls: [{ callId: "a", name: "t", input: {} }] }]),
    );
    expect(onlyCalls[1]).toEqual({
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: "a", toolName: "t", input: {} }],
    });
  });

  it("gathers consecutive results into one tool message; non-ok ones are error-text", () => {
    const prompt = toPrompt(
      request([
        { role: "tool", callId: "a", name: "t", status: "ok", content: "fine" },
        { role: "tool", callId: "b", name: "t", status: "error", content: "failed" },
        { role: "tool", callId: "c", name: "t", status: "denied", content: "denied by ana" },
        { role: "tool", callId: "d", name: "t", status: "interrupted", content: "interrupted" },
        { role: "user", entryId: "e", content: "next" },
        { role: "tool", callId: "e", name: "t", status: "ok", content: "later" },
      ]),
    );
    expect(prompt.slice(1)).toEqual([
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "a", toolName: "t", output: { type: "text", value: "fine" } },
          { type: "tool-result", toolCallId: "b", toolName: "t", output: { type: "error-text", value: "failed" } },
          {
            type: "tool-result",
            toolCallId: "c",
            toolName: "t",
            output: { type: "error-text", value: "denied by ana" },
          },
          { type: "tool-result", toolCallId: "d", toolName: "t", output: { type: "error-text", value: "interrupted" } },
        ],
      },
      { role: "user", content: [{ type: "text", text: "next" }] },
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "e", toolName: "t", output: { type: "text", value: "later" } }],
      },
    ]);
  });
});

describe("toCallOptions", () => {
  const signal = new AbortController().signal;
  const tool = { name: "read", description: "read a file", inputSchema: { type: "object" } };

  it("maps every setting of the request onto the V4 call options", () => {
    const options = toCallOptions(
      {
        system: "sys",
        transcript: [],
        tools: [tool],
        temperature: 0,
        topP: 0.5,
        maxOutputTokens: 10,
        stopSequences: ["END"],
        seed: 3,
        toolChoice: { type: "tool", toolName: "read" },
        responseFormat: { type: "json", schema: { type: "object" }, name: "answer" },
      },
      signal,
    );
    expect(options).toMatchObject({
      temperature: 0,
      topP: 0.5,
      maxOutputTokens: 10,
      stopSequences: ["END"],
      seed: 3,
      toolChoice: { type: "tool", toolName: "read" },
      responseFormat: { type: "json", schema: { type: "object" }, name: "answer" },
    });
  });

  it("says auto without a tool choice, and maps the modes", () => {
    const base = { system: "", transcript: [], tools: [tool] };
    expect(toCallOptions(base, signal).toolChoice).toEqual({ type: "auto" });
    expect(toCallOptions({ ...base, toolChoice: "none" }, signal).toolChoice).toEqual({ type: "none" });
    expect(toCallOptions({ ...base, toolChoice: "required" }, signal).toolChoice).toEqual({ type: "required" });
  });

  it("puts the request's provider options over the adapter's, per provider", () => {
    const options = toCallOptions(
      { system: "", transcript: [], tools: [], providerOptions: { openai: { user: "b" }, anthropic: { x: 1 } } },
      signal,
      { openai: { store: false, user: "a" } },
    );
    expect(options.providerOptions).toEqual({ openai: { store: false, user: "b" }, anthropic: { x: 1 } });
    expect(
      toCallOptions({ system: "", transcript: [], tools: [] }, signal, { openai: { store: false } }),
    ).toMatchObject({ providerOptions: { openai: { store: false } } });
  });
});
