import { describe, expect, it } from "vitest";
import { clientToolResults, newUserMessages } from "./client-messages.ts";
import type { AgUiMessage } from "./run-input.ts";

const messages: AgUiMessage[] = [
  { id: "u1", role: "user", content: "first" },
  {
    id: "a1",
    role: "assistant",
    content: "ok",
    toolCalls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
  },
  { id: "r1", role: "tool", toolCallId: "c1", content: "done" },
  {
    id: "u2",
    role: "user",
    content: [
      { type: "text", text: "second" },
      { type: "text", text: "part" },
    ],
  },
  { id: "u3", role: "user", content: "third" },
];

describe("what Sema reads of an AG-UI conversation", () => {
  it("takes the user messages after the last message of another role, and every tool result", () => {
    expect(newUserMessages(messages)).toEqual([
      { id: "u2", text: "second\n\npart", path: "body.messages.3.content" },
      { id: "u3", text: "third", path: "body.messages.4.content" },
    ]);
    expect(newUserMessages(messages.slice(0, 3))).toEqual([]);
    expect([...clientToolResults(messages).values()]).toEqual([{ toolCallId: "c1", output: "done", failed: false }]);
    const failed = clientToolResults([{ id: "r2", role: "tool", toolCallId: "c2", content: "", error: "closed" }]);
    expect(failed.get("c2")).toEqual({ toolCallId: "c2", output: "closed", failed: true });
  });

  it("refuses content it cannot take, naming the part", () => {
    const image: AgUiMessage = {
      id: "u9",
      role: "user",
      content: [{ type: "image", source: { type: "url", value: "https://example.com/a.png" } }],
    } as AgUiMessage;
    expect(() => newUserMessages([image])).toThrow(
      expect.objectContaining({ status: 400, details: expect.objectContaining({ path: "body.messages.0.content.0" }) }),
    );
  });
});
