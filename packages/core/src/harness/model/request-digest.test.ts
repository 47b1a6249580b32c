import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ModelRequest } from "../../ports/model.ts";
import type { ToolCall, TranscriptEntry } from "../../protocol/transcript.ts";
import { digestRequest } from "./request-digest.ts";

const base = (transcript: TranscriptEntry[]): ModelRequest => ({
  system: "You help.",
  transcript,
  tools: [{ name: "echo", description: "Echo", inputSchema: { type: "object" } }],
  temperature: 0,
});

describe("digestRequest", () => {
  it("ignores entry ids and key order, and names every part that changes", async () => {
    const a = await digestRequest(base([{ role: "user", entryId: "e1", content: "Hi" }]));
    const b = await digestRequest({
      tools: [{ inputSchema: { type: "object" }, description: "Echo", name: "echo" }],
      temperature: 0,
      transcript: [{ role: "user", entryId: "other", content: "Hi" }],
      system: "You help.",
    });
    expect(b).toEqual(a);
    const changed = await Promise.all([
      digestRequest({ ...base([{ role: "user", entryId: "e1", content: "Hi" }]), system: "You help!" }),
      digestRequest({ ...base([{ role: "user", entryId: "e1", content: "Hi" }]), temperature: 1 }),
      digestRequest({ ...base([{ role: "user", entryId: "e1", content: "Hi" }]), tools: [] }),
      digestRequest(base([{ role: "user", entryId: "e1", content: "Hi." }])),
    ]);
    const parts = ["system", "settings", "tools", "transcript"] as const;
    changed.forEach((digest, i) => {
      expect(digest.digest).not.toBe(a.digest);
      for (const part of parts) expect(digest[part] === a[part], `${parts[i]} vs ${part}`).toBe(part !== parts[i]);
    });
  });

  it("property: two transcripts digest alike exactly when the model would see the same entries", async () => {
    const entry: fc.Arbitrary<TranscriptEntry> = fc.oneof(
      fc.record({ role: fc.constant("user" as const), entryId: fc.string(), content: fc.string() }),
      fc.record({ role: fc.constant("assistant" as const), text: fc.string(), toolCalls: fc.constant<ToolCall[]>([]) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { maxLength: 4 }), fc.array(entry, { maxLength: 4 }), async (x, y) => {
        const view = (es: TranscriptEntry[]) =>
          JSON.stringify(es.map((e) => (e.role === "user" ? [e.content] : e.role === "assistant" ? [e.text] : [])));
        const same = x.length === y.length && x.every((e, i) => e.role === y[i]?.role) && view(x) === view(y);
        const [dx, dy] = [await digestRequest(base(x)), await digestRequest(base(y))];
        expect(dx.transcript === dy.transcript).toBe(same);
        expect(dx.entries).toBe(x.length);
      }),
    );
  });
});
