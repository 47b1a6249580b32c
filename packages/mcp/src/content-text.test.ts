import { describe, expect, it } from "vitest";
import { resultText } from "./content-text.ts";

describe("resultText", () => {
  it("joins text parts verbatim with blank lines", () => {
    expect(
      resultText({
        content: [
          { type: "text", text: "first\n  indented" },
          { type: "text", text: "<b>second</b>" },
        ],
      }),
    ).toBe("first\n  indented\n\n<b>second</b>");
  });

  it("shows images and audio as placeholders with their size", () => {
    const data = "A".repeat(12_345);
    expect(
      resultText({
        content: [
          { type: "image", data, mimeType: "image/png" },
          { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        ],
      }),
    ).toBe("[image: image/png, 12,345 bytes base64]\n\n[audio: audio/wav, 4 bytes base64]");
  });

  it("shows resource links and embedded resources by URI, with their text", () => {
    expect(
      resultText({
        content: [
          { type: "resource_link", uri: "file:///a.txt", name: "a.txt" },
          { type: "resource_link", uri: "file:///b.txt", name: "b", mimeType: "text/plain", description: "The b file" },
          { type: "resource", resource: { uri: "file:///c.md", mimeType: "text/markdown", text: "# C" } },
          { type: "resource", resource: { uri: "file:///d.bin", blob: "AAAAAAAA" } },
        ],
      }),
    ).toBe(
      [
        "[resource link: file:///a.txt, a.txt]",
        "[resource link: file:///b.txt, b, text/plain]\nThe b file",
        "[resource: file:///c.md, text/markdown]\n# C",
        "[resource: file:///d.bin, 8 bytes base64]",
      ].join("\n\n"),
    );
  });

  it("adds structuredContent as JSON only when no part is text", () => {
    const structuredContent = { temperature: 36 };
    expect(resultText({ content: [], structuredContent })).toBe('{"temperature":36}');
    expect(resultText({ content: [{ type: "image", data: "AA", mimeType: "image/png" }], structuredContent })).toBe(
      '[image: image/png, 2 bytes base64]\n\n{"temperature":36}',
    );
    expect(resultText({ content: [{ type: "text", text: "36 degrees" }], structuredContent })).toBe("36 degrees");
  });

  it("names a content type it does not know instead of dropping it", () => {
    const block = { type: "hologram", data: "…" } as unknown as { type: "text"; text: string };
    expect(resultText({ content: [block] })).toBe("[hologram content]");
  });

  it("reads the pre-2024-11-05 toolResult shape as JSON", () => {
    expect(resultText({ toolResult: { ok: true } })).toBe('{"ok":true}');
  });

  it("is empty for an empty result", () => {
    expect(resultText({ content: [] })).toBe("");
  });
});
