/**
 * Protocols are opt-in: an app serves exactly the surfaces it was given, each protocol's options
 * are checked where it is made, and `serve` starts and closes each with the server.
 */
import { MemoryStore } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { describe, expect, it } from "vitest";
import { a2a } from "./a2a/a2a-protocol.ts";
import { MemoryPushConfigStore } from "./a2a/push-config-store.ts";
import { agUi } from "./ag-ui/ag-ui-protocol.ts";
import { type AppOptions, createApp } from "./app.ts";
import { webConsole } from "./console/console-protocol.ts";
import { createAgentRegistry } from "./index.ts";
import { MemoryTokenStore } from "./ingress/memory-token-store.ts";
import { createTokenIngress } from "./ingress/token-ingress.ts";
import { mcp } from "./mcp/mcp-protocol.ts";
import { serve } from "./node/serve.ts";
import type { ServerProtocol } from "./server-protocol.ts";
import { allProtocols } from "./test-support/all-protocols.ts";
import { configErrorOf } from "./test-support/config-error.ts";
import { uiStream } from "./ui-stream/ui-stream-protocol.ts";

const agents = () => createAgentRegistry({ default: { model: new ScriptedModel([{ text: "hi" }]) } });

async function world(protocols?: ServerProtocol[]) {
  const tokens = new MemoryTokenStore();
  const { token } = await tokens.create({ principal: "acme" });
  const app = createApp({
    store: new MemoryStore(),
    agents: agents(),
    ingress: createTokenIngress(tokens),
    ...(protocols === undefined ? {} : { protocols }),
  });
  const get = (path: string, init: RequestInit = {}) =>
    app.request(path, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
  return { app, get };
}

/** One request that reaches each protocol's surface, and what it answers when mounted. */
const SURFACES: Record<string, { path: string; init?: RequestInit }> = {
  a2a: { path: "/.well-known/agent-card.json" },
  mcp: {
    path: "/mcp",
    init: {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    },
  },
  "ag-ui": {
    path: "/v1/agents/default/ag-ui",
    init: { method: "POST", headers: { "content-type": "application/json" }, body: "{}" },
  },
  "ui-stream": {
    path: "/v1/chat",
    init: { method: "POST", headers: { "content-type": "application/json" }, body: "{}" },
  },
  console: { path: "/" },
};

function thatProtocol(name: string): ServerProtocol {
  return allProtocols().find((protocol) => protocol.name === name) ?? a2a();
}

describe("protocols are opt-in", () => {
  it("an app given none serves /v1 alone: every protocol's path is a 404, and the OpenAPI lists none of theirs", async () => {
    const { get } = await world();
    for (const [name, surface] of Object.entries(SURFACES)) {
      const response = await get(surface.path, surface.init);
      expect([name, response.status]).toEqual([name, 404]);
    }
    expect((await get("/v1/tasks")).status).toBe(200);
    const paths = Object.keys(((await (await get("/v1/openapi.json")).json()) as { paths: object }).paths);
    expect(paths.filter((path) => /ag-ui|chat/.test(path))).toEqual([]);
  });

  it.each(Object.keys(SURFACES))("mounting %s alone serves its surface and no other's", async (name) => {
    const { get } = await world([thatProtocol(name)]);
    for (const [other, surface] of Object.entries(SURFACES)) {
      const { status } = await get(surface.path, surface.init);
      if (other === name) expect([other, status]).not.toEqual([other, 404]);
      else expect([other, status]).toEqual([other, 404]);
    }
  });

  it("the /v1 routes of ag-ui and ui-stream are in the OpenAPI document when mounted", async () => {
    const { get } = await world([agUi(), uiStream()]);
    const paths = Object.keys(((await (await get("/v1/openapi.json")).json()) as { paths: object }).paths);
    expect(paths).toContain("/v1/agents/{name}/ag-ui");
    expect(paths).toContain("/v1/chat");
  });
});

describe("a protocol's configuration is checked where it is given", () => {
  const base = () => ({
    store: new MemoryStore(),
    agents: agents(),
    ingress: createTokenIngress(new MemoryTokenStore()),
  });

  it("a2a() refuses an unknown key, a bad publicUrl and a push without configs", async () => {
    expect(await configErrorOf(() => a2a({ publicURL: "https://x.example" } as never))).toContain(
      'unknown key "publicURL"',
    );
    expect(await configErrorOf(() => a2a({ publicUrl: "agents.example.com" }))).toContain("publicUrl");
    expect(await configErrorOf(() => a2a({ push: {} as never }))).toContain("push");
  });

  it("createApp refuses a value that is no protocol, and a protocol given twice", async () => {
    expect(await configErrorOf(() => createApp({ ...base(), protocols: [{}] } as unknown as AppOptions))).toContain(
      "protocols.0",
    );
    expect(await configErrorOf(() => createApp({ ...base(), protocols: [mcp(), mcp()] }))).toContain(
      "mcp is mounted twice",
    );
  });

  it("an a2a() that runs its own push dispatcher mounts on one app only", async () => {
    const protocol = a2a({ push: { configs: new MemoryPushConfigStore() } });
    createApp({ ...base(), protocols: [protocol] });
    expect(await configErrorOf(() => createApp({ ...base(), protocols: [protocol] }))).toContain("mounted already");
  });
});

describe("serve runs each protocol's lifecycle", () => {
  it("starts each once the port is bound and closes each on close, in order", async () => {
    const seen: string[] = [];
    const probe = (name: string): ServerProtocol => ({
      name,
      mount: () => void seen.push(`mount ${name}`),
      start: async () => void seen.push(`start ${name}`),
      close: async () => void seen.push(`close ${name}`),
    });
    const serving = await serve({
      store: new MemoryStore(),
      tokens: new MemoryTokenStore(),
      agents: agents(),
      port: 0,
      workers: false,
      protocols: [probe("one"), webConsole(), probe("two")],
    });
    expect(seen).toEqual(["mount one", "mount two", "start one", "start two"]);
    expect((await fetch(`${serving.url}/`)).status).toBe(200);
    await serving.close();
    expect(seen.slice(4).sort()).toEqual(["close one", "close two"]);
  });

  it("a protocol whose start fails stops the server before serve resolves, and closes the others", async () => {
    const closed: string[] = [];
    const failing = serve({
      store: new MemoryStore(),
      tokens: new MemoryTokenStore(),
      agents: agents(),
      port: 0,
      workers: false,
      protocols: [
        { name: "fine", close: async () => void closed.push("fine") },
        {
          name: "broken",
          start: async () => {
            throw new Error("cannot start");
          },
        },
      ],
    });
    await expect(failing).rejects.toThrow("cannot start");
    expect(closed).toEqual(["fine"]);
  });
});
