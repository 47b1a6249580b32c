// A task's model settings reach its root span as the GenAI conventions' gen_ai.request.*
// attributes, each setting that has one; settings without a convention write nothing.
import type { StoredEvent, TaskEvent } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { describe, expect, it } from "vitest";
import { foldSpans } from "./span-fold.ts";

function created(settings: Record<string, unknown>): StoredEvent {
  const event = { ...make.created(), settings } as TaskEvent;
  return { ...event, taskId: "t1", seq: 1, at: "2026-12-07T10:00:00.000Z" } as StoredEvent;
}

describe("model settings as span attributes", () => {
  it("writes each setting that has a gen_ai.request attribute, and nothing for the others", () => {
    const [root] = foldSpans([
      created({
        temperature: 0.2,
        topP: 0.9,
        maxOutputTokens: 512,
        stopSequences: ["END"],
        seed: 7,
        frequencyPenalty: 0.5,
        toolChoice: "none",
        providerOptions: { openai: { user: "u" } },
      }),
    ]);
    const request = Object.fromEntries(
      Object.entries(root?.attributes ?? {}).filter(([name]) => name.startsWith("gen_ai.request.")),
    );
    expect(request).toEqual({
      "gen_ai.request.temperature": 0.2,
      "gen_ai.request.top_p": 0.9,
      "gen_ai.request.max_tokens": 512,
      "gen_ai.request.stop_sequences": ["END"],
      "gen_ai.request.seed": 7,
      "gen_ai.request.frequency_penalty": 0.5,
    });
  });
});
