// The access log of `listen` and `serve`: one entry per request, its path never with the query
// string; and a port in use refused before the one-time first token is minted.

import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { MemoryStore } from "@sema-agent/core";
import fc from "fast-check";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { scriptedAgent } from "../../../worker/src/test-support/scripted-agent.ts";
import type { AppEnv } from "../app-env.ts";
import { createAgentRegistry } from "../index.ts";
import { MemoryTokenStore } from "../ingress/memory-token-store.ts";
import { type AccessLogEntry, listen, pathOf } from "./listen.ts";
import { serve } from "./serve.ts";

describe("pathOf", () => {
  it("is the path alone: no query string or fragment survives, the path is kept whole", () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9._~%-]*$/);
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 5 }), fc.string(), (segments, rest) => {
        const path = `/${segments.join("/")}`;
        for (const target of [path, `${path}?${rest}`, `${path}#${rest}`]) {
          expect(pathOf(target)).toBe(path);
          expect(pathOf(target)).not.toMatch(/[?#]/);
        }
      }),
    );
    expect(pathOf("?token=x")).toBe("/");
    expect(pathOf(undefined)).toBe("/");
  });
});

describe("listen: accessLog", () => {
  it("gets one entry per request: method, path without the query, status, duration", async () => {
    const app = new Hono<AppEnv>();
    app.get("/v1/things", (c) => c.json({ ok: true }));
    const entries: AccessLogEntry[] = [];
    const listening = await listen(app, { port: 0, accessLog: (entry) => entries.push(entry) });
    try {
      await (await fetch(`${listening.url}/v1/things?access_token=secret-value`)).text();
      await (
        await fetch(`${listening.url}/nowhere`, { method: "POST", headers: { authorization: "Bearer t0k" } })
      ).text();
      await expect.poll(() => entries.length).toBe(2);
      expect(entries.map(({ durationMs: _d, ...entry }) => entry)).toEqual([
        { method: "GET", path: "/v1/things", status: 200 },
        { method: "POST", path: "/nowhere", status: 404 },
      ]);
      for (const entry of entries) expect(Number.isInteger(entry.durationMs) && entry.durationMs >= 0).toBe(true);
      expect(JSON.stringify(entries)).not.toMatch(/secret-value|t0k/);
    } finally {
      await listening.close();
    }
  });
});

describe("serve: a port in use", () => {
  it("rejects with EADDRINUSE before the first token is minted", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as AddressInfo;
    const tokens = new MemoryTokenStore();
    try {
      await expect(
        serve({
          store: new MemoryStore(),
          tokens,
          agents: createAgentRegistry({ default: scriptedAgent([{ text: "x" }]) }),
          port,
        }),
      ).rejects.toMatchObject({ code: "EADDRINUSE" });
      expect(await tokens.list()).toEqual([]);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
    // Once the port is free, the first start mints it.
    const serving = await serve({
      store: new MemoryStore(),
      tokens,
      agents: createAgentRegistry({ default: scriptedAgent([{ text: "x" }]) }),
      port,
      workers: false,
    });
    try {
      expect(serving.firstToken?.token).toMatch(/./);
      expect(await tokens.list()).toHaveLength(1);
    } finally {
      await serving.close({ deadlineMs: 1000 });
    }
  });
});
