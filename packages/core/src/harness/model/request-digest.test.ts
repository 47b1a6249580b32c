import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../core/canonical-json.ts";
import type { ModelRequest } from "../../ports/model.ts";
import type { ToolCall, TranscriptEntry } from "../../protocol/transcript.ts";
import { sha256Hex } from "../tools/approvals.ts";
import { digestRequest, modelView } from "./request-digest.ts";

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

  it("property: a transcript growing in place digests as Web Crypto does over the whole, turn after turn", async () => {
    // The definition, computed from scratch with Web Crypto: what model_turn v2 has always recorded.
    const reference = async (entries: readonly TranscriptEntry[]) => {
      const each = await Promise.all(entries.map((e) => sha256Hex(canonicalJson(modelView(e)))));
      return sha256Hex(each.join("\n"));
    };
    const entry: fc.Arbitrary<TranscriptEntry> = fc.oneof(
      fc.record({ role: fc.constant("user" as const), entryId: fc.string(), content: fc.string() }),
      fc.record({ role: fc.constant("assistant" as const), text: fc.string(), toolCalls: fc.constant<ToolCall[]>([]) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(entry, { maxLength: 3 }), { minLength: 1, maxLength: 6 }),
        fc.nat({ max: 6 }),
        async (turns, replaceAt) => {
          let transcript: TranscriptEntry[] = [];
          for (const [turn, added] of turns.entries()) {
            // A compaction makes a new array; otherwise the leg's transcript grows in place.
            if (turn === replaceAt) transcript = transcript.slice(1);
            transcript.push(...added);
            const digest = await digestRequest(base(transcript));
            expect(digest.transcript).toBe(await reference(transcript));
            expect(digest.entries).toBe(transcript.length);
            // Asked again with nothing added, and on a fresh copy of the same entries: the same.
            expect((await digestRequest(base(transcript))).transcript).toBe(digest.transcript);
            expect((await digestRequest(base([...transcript]))).digest).toBe(digest.digest);
          }
        },
      ),
    );
  });

  it("hashes a long entry by Web Crypto and a short one here, to the same digests", async () => {
    const long: TranscriptEntry = { role: "user", entryId: "e1", content: "x".repeat(70_000) };
    const short: TranscriptEntry = { role: "user", entryId: "e2", content: "Hi" };
    const transcript = [short, long, short];
    const digest = await digestRequest(base(transcript));
    const each = await Promise.all(transcript.map((e) => sha256Hex(canonicalJson(modelView(e)))));
    expect(digest.transcript).toBe(await sha256Hex(each.join("\n")));
  });

  it("hashes a long unhashed transcript in slices, letting the event loop turn between them", async () => {
    const transcript: TranscriptEntry[] = Array.from({ length: 1_000 }, (_, i) => ({
      role: "user",
      entryId: `e${i}`,
      content: `Entry ${i}.`,
    }));
    let turned = false;
    const digesting = digestRequest(base(transcript));
    setImmediate(() => {
      turned = true;
    });
    const digest = await digesting;
    // All at once, the digest would have settled before the loop's next turn.
    expect(turned).toBe(true);
    const each = await Promise.all(transcript.map((e) => sha256Hex(canonicalJson(modelView(e)))));
    expect(digest.transcript).toBe(await sha256Hex(each.join("\n")));
    expect(digest.entries).toBe(1_000);
  });

  it("hashes a turn's few new entries at once, without waiting for the event loop", async () => {
    const transcript: TranscriptEntry[] = [{ role: "user", entryId: "e1", content: "Hi" }];
    let turned = false;
    const digesting = digestRequest(base(transcript));
    setImmediate(() => {
      turned = true;
    });
    await digesting;
    expect(turned).toBe(false);
  });
});
