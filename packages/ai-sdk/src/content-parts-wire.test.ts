/**
 * Images and files on the wire: a user entry's attachments, with the bytes the request resolved
 * from the store, reach the real `@ai-sdk/openai` (chat completions and Responses) and
 * `@ai-sdk/anthropic` providers as V4 file parts and leave them in each vendor's own format
 * (checked in the request body the replay server captured). A URL goes out as a URL only where the
 * provider takes it (`supportedUrls`); otherwise the call fails before anything is sent.
 */
import { createOpenAI } from "@ai-sdk/openai";
import type { Model } from "@sema-agent/core";
import type { ModelRequest } from "@sema-agent/core/model-kit";
import { describe, expect, it } from "vitest";
import { fromAiSdk } from "./from-ai-sdk.ts";
import { resolveModel } from "./resolve-model.ts";
import { sseEvents } from "./test-support/replay-server.ts";
import { collect, lastFailure, replayServerForSuite, textOf } from "./test-support/wire-suite.ts";

const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 3, 254, 255]);
const pngBase64 = btoa(String.fromCharCode(...png));
const pdfText = "%PDF-1.4 a tiny document";
const pdf = Uint8Array.from(pdfText, (c) => c.charCodeAt(0));
const pdfBase64 = btoa(pdfText);
const PNG_DIGEST = "1".repeat(64);
const PDF_DIGEST = "2".repeat(64);
const TEXT = '[from "alice"]\nWhat is in these?';

function request(extra: ModelRequest["transcript"][number][] = []): ModelRequest {
  return {
    system: "You look at pictures.",
    transcript: [
      {
        role: "user",
        entryId: "e1",
        content: TEXT,
        parts: [
          { type: "text", text: TEXT },
          { type: "image", digest: PNG_DIGEST, mediaType: "image/png", size: png.length },
          {
            type: "file",
            digest: PDF_DIGEST,
            mediaType: "application/pdf",
            size: pdf.length,
            filename: "tiny.pdf",
          },
        ],
      },
      ...extra,
    ],
    blobs: new Map([
      [PNG_DIGEST, png],
      [PDF_DIGEST, pdf],
    ]),
    tools: [],
  };
}

const urlEntry = (mediaType: string, url: string): ModelRequest["transcript"][number] => ({
  role: "user",
  entryId: "e2",
  content: "and this",
  parts: [
    { type: "text", text: "and this" },
    { type: "image", url, mediaType },
  ],
});

const openaiChat = (baseURL: string): Model =>
  fromAiSdk(createOpenAI({ apiKey: "sk-test-key", baseURL }).chat("gpt-4o-mini"), { id: "openai:gpt-4o-mini" });
const openaiResponses = (baseURL: string): Model =>
  resolveModel(
    "openai:gpt-4.1",
    { OPENAI_API_KEY: "sk-test-key", OPENAI_BASE_URL: baseURL },
    { retry: { maxRetries: 0 } },
  );
const anthropic = (baseURL: string): Model =>
  resolveModel(
    "anthropic:claude-sonnet-4-5",
    { ANTHROPIC_API_KEY: "sk-ant-test-key", ANTHROPIC_BASE_URL: baseURL },
    { retry: { maxRetries: 0 } },
  );

describe("content parts on the wire", () => {
  const server = replayServerForSuite();
  const lastBody = () => JSON.parse(server.requests.at(-1)?.body ?? "{}");

  it("openai chat completions: the text, then the image as a data URL, then the PDF as a file", async () => {
    server.reply({ events: sseEvents("openai-chat/text.sse") });
    const parts = await collect(openaiChat(server.baseURL), request());
    expect(textOf(parts)).not.toBe("");
    const user = lastBody().messages[1];
    expect(user).toEqual({
      role: "user",
      content: [
        { type: "text", text: TEXT },
        { type: "image_url", image_url: { url: `data:image/png;base64,${pngBase64}` } },
        { type: "file", file: { filename: "tiny.pdf", file_data: `data:application/pdf;base64,${pdfBase64}` } },
      ],
    });
  });

  it("openai responses: input_text, input_image, input_file", async () => {
    server.reply({ events: sseEvents("openai-responses/text.sse") });
    await collect(openaiResponses(server.baseURL), request());
    const user = lastBody().input.find((item: { role?: string }) => item.role === "user");
    expect(user.content).toEqual([
      { type: "input_text", text: TEXT },
      { type: "input_image", image_url: `data:image/png;base64,${pngBase64}` },
      { type: "input_file", filename: "tiny.pdf", file_data: `data:application/pdf;base64,${pdfBase64}` },
    ]);
  });

  it("anthropic: an image block and a document block with base64 sources", async () => {
    server.reply({ events: sseEvents("anthropic/text.sse") });
    await collect(anthropic(server.baseURL), request());
    const user = lastBody().messages[0];
    expect(user.role).toBe("user");
    expect(user.content).toMatchObject([
      { type: "text", text: TEXT },
      { type: "image", source: { type: "base64", media_type: "image/png", data: pngBase64 } },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: pdfBase64 } },
    ]);
  });

  it("a URL the provider takes goes out as a URL, never fetched", async () => {
    server.reply({ events: sseEvents("anthropic/text.sse") });
    await collect(anthropic(server.baseURL), request([urlEntry("image/png", "https://example.com/cat.png")]));
    // Anthropic takes consecutive user turns as one message: the second entry's blocks follow the first's.
    const content = lastBody().messages.at(-1).content;
    expect(content.slice(3)).toMatchObject([
      { type: "text", text: "and this" },
      { type: "image", source: { type: "url", url: "https://example.com/cat.png" } },
    ]);
  });

  it("a URL the provider does not take fails the call, not retryable, before anything is sent", async () => {
    const before = server.requests.length;
    // OpenAI's chat completions take image URLs over http(s) only.
    const parts = await collect(
      openaiChat(server.baseURL),
      request([urlEntry("image/png", "ftp://example.com/cat.png")]),
    );
    const failure = lastFailure(parts);
    expect(failure).toMatchObject({ code: "bad_request", isRetryable: false });
    expect(failure.message).toContain("ftp://example.com/cat.png");
    expect(server.requests.length).toBe(before);
  });
});
