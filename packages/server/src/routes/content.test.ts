// Images and files over HTTP: POST /v1/tasks and the inputs route take content parts with base64
// data, store the bytes once by digest, record the references, and refuse what is over a limit.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { apiFixture, createTask, json, runOnce } from "../test-support/api-fixture.ts";

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 3, 254, 255]);
const digest = createHash("sha256").update(png).digest("hex");
const image = { type: "image", data: png.toString("base64"), mediaType: "image/png" };

describe("content parts over HTTP", () => {
  it("POST /v1/tasks takes an objective of parts; the model gets the text, attributed, and the bytes", async () => {
    const fx = await apiFixture({ turns: [{ text: "A picture." }] });
    const response = await fx.call("POST", "/v1/tasks", {
      body: { objective: [{ type: "text", text: "What is this?" }, image] },
    });
    expect(response.status).toBe(201);
    const { taskId } = await json<{ taskId: string }>(response);
    const [created, input] = await fx.store.read(taskId);
    expect(created).toMatchObject({ type: "task_created", objective: "What is this?" });
    expect(input).toMatchObject({
      type: "human_input",
      v: 2,
      text: "What is this?",
      attachments: [{ type: "image", digest, mediaType: "image/png", size: png.length }],
    });
    await runOnce(fx, taskId);
    const [request] = fx.agent.model.requests;
    const entry = request?.transcript[0];
    expect(entry?.role === "user" ? entry.parts : undefined).toEqual([
      { type: "text", text: '[from "alice"]\nWhat is this?' },
      { type: "image", digest, mediaType: "image/png", size: png.length },
    ]);
    expect(Buffer.from(request?.blobs?.get(digest) ?? []).equals(png)).toBe(true);
  });

  it("the inputs route takes parts, images alone included", async () => {
    const fx = await apiFixture();
    const taskId = await createTask(fx);
    const response = await fx.call("POST", `/v1/tasks/${taskId}/inputs`, {
      body: {
        text: [{ ...image }, { type: "file", data: "JVBERi0=", mediaType: "application/pdf", filename: "a.pdf" }],
      },
    });
    expect(response.status).toBe(202);
    const last = (await fx.store.read(taskId)).filter((e) => e.type === "human_input").at(-1);
    expect(last).toMatchObject({
      v: 2,
      text: "",
      attachments: [
        { type: "image", digest },
        { type: "file", mediaType: "application/pdf", size: 5, filename: "a.pdf" },
      ],
    });
  });

  it("refuses parts over the limits with a 413 ContentTooLarge, and malformed parts with a 400", async () => {
    const fx = await apiFixture({ app: { limits: { maxPartBytes: 10, maxContentBytes: 20 } } });
    const taskId = await createTask(fx);
    const tooBig = await fx.call("POST", `/v1/tasks/${taskId}/inputs`, { body: { text: [image] } });
    expect(tooBig.status).toBe(413);
    expect(await json(tooBig)).toMatchObject({ error: { code: "ContentTooLarge" } });
    const small = { type: "image", data: Buffer.alloc(8).toString("base64"), mediaType: "image/png" };
    const together = await fx.call("POST", "/v1/tasks", { body: { objective: [small, small, small] } });
    expect(together.status).toBe(413);
    for (const bad of [
      [{ type: "image", data: "###", mediaType: "image/png" }],
      [{ type: "image", data: "AAAA", mediaType: "png" }],
      [{ type: "image", data: "AAAA", mediaType: "application/pdf" }],
      [{ type: "video", data: "AAAA", mediaType: "video/mp4" }],
      [{ type: "text", text: "   " }],
      [],
    ]) {
      const response = await fx.call("POST", "/v1/tasks", { body: { objective: bad } });
      expect(response.status, JSON.stringify(bad)).toBe(400);
    }
    const body = await fx.call("POST", "/v1/tasks", {
      body: { objective: [{ type: "text", text: "x".repeat(32_001) }] },
    });
    expect(body.status).toBe(413);
  });

  it("reads a body with parts under maxContentBodyBytes, every other body under maxBodyBytes", async () => {
    const fx = await apiFixture({ app: { limits: { maxBodyBytes: 1024, maxContentBodyBytes: 4096 } } });
    const taskId = await createTask(fx);
    const data = Buffer.alloc(2000).toString("base64");
    const ok = await fx.call("POST", `/v1/tasks/${taskId}/inputs`, {
      body: { text: [{ type: "image", data, mediaType: "image/png" }] },
    });
    expect(ok.status).toBe(202);
    const over = await fx.call("POST", `/v1/tasks/${taskId}/inputs`, {
      body: { text: [{ type: "image", data: Buffer.alloc(4000).toString("base64"), mediaType: "image/png" }] },
    });
    expect(over.status).toBe(413);
    const cancel = await fx.call("POST", `/v1/tasks/${taskId}/cancel`, { body: { reason: "y".repeat(2000) } });
    expect(cancel.status).toBe(413);
  });

  it("GET /v1/tasks/:taskId/blobs/:digest gives a task's own attachments only, never to run or sniff", async () => {
    const fx = await apiFixture();
    const created = await fx.call("POST", "/v1/tasks", { body: { objective: [{ type: "text", text: "see" }, image] } });
    const { taskId } = await json<{ taskId: string }>(created);
    const response = await fx.call("GET", `/v1/tasks/${taskId}/blobs/${digest}`);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(png)).toBe(true);
    expect(response.headers.get("content-type")).toBe("image/png");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    // Another principal's task is not found, whoever knows the digest.
    expect((await fx.call("GET", `/v1/tasks/${taskId}/blobs/${digest}`, { token: fx.tokens.mallory })).status).toBe(
      404,
    );
    // A task that never carried these bytes does not serve them, though the store holds them.
    const other = await createTask(fx);
    const notHers = await fx.call("GET", `/v1/tasks/${other}/blobs/${digest}`);
    expect(notHers.status).toBe(404);
    expect(await json(notHers)).toMatchObject({ error: { code: "BlobNotFound" } });
    expect((await fx.call("GET", `/v1/tasks/${taskId}/blobs/not-a-digest`)).status).toBe(400);
  });
});
