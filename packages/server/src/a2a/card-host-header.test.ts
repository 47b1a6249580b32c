/**
 * Issue 29, finding 7: the agent card's URLs never come from the request. A spoofed `Host` (or
 * `X-Forwarded-Host`) is not advertised — the card is cached publicly — : the card names the
 * configured `publicUrl`, or without one the address of the server's own socket. Over a real
 * socket; the official client then works against the card it read.
 */
import { request } from "node:http";
import { SendMessageRequest } from "@a2a-js/sdk";
import { isSemaError, MemoryStore } from "@sema-agent/core";
import { createAgentRegistry } from "@sema-agent/worker";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryTokenStore } from "../ingress/memory-token-store.ts";
import { type Serving, serve } from "../node/serve.ts";
import { a2aClient } from "../test-support/a2a-server.ts";
import { allProtocols } from "../test-support/all-protocols.ts";
import { scriptedAgent } from "../test-support/api-fixture.ts";

let serving: Serving | undefined;
afterEach(async () => {
  await serving?.close({ deadlineMs: 2000 });
  serving = undefined;
});

async function start(publicUrl?: string): Promise<Serving> {
  serving = await serve({
    store: new MemoryStore(),
    tokens: new MemoryTokenStore(),
    agents: createAgentRegistry(
      { default: scriptedAgent([{ text: "hi" }]), helper: scriptedAgent([{ text: "hi" }], "helper") },
      "default",
    ),
    port: 0,
    workers: { pollMs: 20 },
    protocols: allProtocols(publicUrl === undefined ? {} : { a2a: { publicUrl } }),
  });
  return serving;
}

/** GET `path` on `base` with the headers as given (fetch may not set `Host`). */
function get(base: string, path: string, headers: Record<string, string>) {
  const url = new URL(path, base);
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: "GET", headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

const SPOOFED = {
  host: "evil.example:8443",
  "x-forwarded-host": "evil.example:8443",
  "x-forwarded-proto": "https",
  forwarded: "host=evil.example:8443;proto=https",
};

function urlsOf(body: string): string[] {
  const card = JSON.parse(body) as { supportedInterfaces: { url: string }[] };
  return card.supportedInterfaces.map((i) => i.url);
}

describe("the agent card and the Host header", () => {
  it("advertises the server's own address, not a spoofed Host, and the client works from it", async () => {
    const { url, firstToken } = await start();
    for (const [path, base] of [
      ["/.well-known/agent-card.json", `${url}/a2a`],
      ["/a2a/agents/helper/.well-known/agent-card.json", `${url}/a2a/agents/helper`],
    ] as const) {
      const response = await get(url, path, SPOOFED);
      expect(response.status).toBe(200);
      expect(response.body).not.toContain("evil.example");
      expect(urlsOf(response.body)).toEqual([base, `${base}/v1`]);
    }
    const client = await a2aClient(url, firstToken?.token ?? "", "HTTP+JSON");
    const sent = await client.sendMessage(
      SendMessageRequest.fromJSON({ message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "Hello" }] } }),
    );
    expect("id" in sent || "messageId" in sent).toBe(true);
  });

  it("advertises the configured publicUrl whatever the Host says", async () => {
    const { url } = await start("https://agents.example.com/sema/");
    const response = await get(url, "/.well-known/agent-card.json", SPOOFED);
    expect(response.status).toBe(200);
    expect(response.headers["cache-control"]).toMatch(/public/);
    expect(urlsOf(response.body)).toEqual([
      "https://agents.example.com/sema/a2a",
      "https://agents.example.com/sema/a2a/v1",
    ]);
    const named = await get(url, "/a2a/agents/helper/.well-known/agent-card.json", SPOOFED);
    expect(urlsOf(named.body)).toEqual([
      "https://agents.example.com/sema/a2a/agents/helper",
      "https://agents.example.com/sema/a2a/agents/helper/v1",
    ]);
  });

  it.each([
    "agents.example.com",
    "ftp://agents.example.com",
    "https://agents.example.com/?x=1",
    "https://agents.example.com/#card",
    "https://user:pw@agents.example.com",
    "",
  ])("refuses the publicUrl %j as a ConfigError before binding", async (publicUrl) => {
    const refused = await start(publicUrl).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isSemaError(refused, "ConfigError")).toBe(true);
    expect(String(refused)).toMatch(/publicUrl/);
  });
});
