// sema serve speaks A2A on its port: the official @a2a-js/sdk client against the CLI's server.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SendMessageRequest, type StreamResponse, TaskState } from "@a2a-js/sdk";
import { ClientFactory, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { describe, expect, it } from "vitest";
import { main } from "./main.ts";
import { captureIo, until } from "./test-support/capture-io.ts";

describe("sema serve over A2A", () => {
  it("serves the card and a streamed task; push configs refuse loopback webhooks by default", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sema-serve-a2a-"));
    const script = join(dir, "turns.json");
    writeFileSync(script, JSON.stringify({ turns: [{ text: "Served over A2A." }] }));
    const stop = new AbortController();
    const c = captureIo(dir, { extra: { interrupt: stop.signal } });
    const serving = main(["serve", "--port", "0", "--db", join(dir, "sema.db"), "--model", `script:${script}`], c.io);
    await until(() => /Bearer <token>/.test(c.out()));
    const url = /serving (http:\/\/\S+)/.exec(c.out())?.[1] ?? "";
    const token = /\n\n {2}(\S+)\n\n/.exec(c.out())?.[1] ?? "";
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("authorization", `Bearer ${token}`);
      return fetch(input, { ...init, headers });
    };
    const client = await new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })] }).createFromUrl(
      url,
    );
    expect((await client.getAgentCard()).capabilities).toMatchObject({ streaming: true, pushNotifications: true });
    const events: StreamResponse[] = [];
    const request = SendMessageRequest.fromJSON({
      message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "Say it" }] },
    });
    for await (const event of client.sendMessageStream(request)) events.push(event);
    const last = events.at(-1)?.payload;
    expect(last?.$case === "statusUpdate" && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const taskId = last?.$case === "statusUpdate" ? last.value.taskId : "";
    await expect(
      client.createTaskPushNotificationConfig({
        tenant: "",
        id: "",
        taskId,
        url: "http://127.0.0.1:9/hook",
        token: "t",
        authentication: undefined,
      }),
    ).rejects.toThrow(/loopback, private or otherwise non-public/);
    stop.abort();
    expect(await serving).toBe(0);
  });

  it("--a2a-push off: the card says no push, so a second node on one database sends no duplicates; --public-url is its origin", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sema-serve-a2a-"));
    const script = join(dir, "turns.json");
    writeFileSync(script, JSON.stringify({ turns: [{ text: "unused" }] }));
    const stop = new AbortController();
    const c = captureIo(dir, { extra: { interrupt: stop.signal } });
    const args = [
      "serve",
      "--port",
      "0",
      "--db",
      join(dir, "sema.db"),
      "--model",
      `script:${script}`,
      "--a2a-push",
      "off",
      "--public-url",
      "https://agents.example.com/sema",
    ];
    const serving = main(args, c.io);
    await until(() => /Bearer <token>/.test(c.out()));
    const url = /serving (http:\/\/\S+)/.exec(c.out())?.[1] ?? "";
    const card = (await (
      await fetch(`${url}/.well-known/agent-card.json`, { headers: { "x-forwarded-host": "evil.example" } })
    ).json()) as {
      capabilities: { pushNotifications: boolean };
      supportedInterfaces?: Array<{ url: string }>;
    };
    expect(card.capabilities.pushNotifications).toBe(false);
    // --public-url is the card's origin, whatever a request's headers say.
    const urls = (card.supportedInterfaces ?? []).map((i) => i.url);
    expect(urls.length).toBeGreaterThan(0);
    for (const advertised of urls) expect(advertised).toMatch(/^https:\/\/agents\.example\.com\/sema\//);
    stop.abort();
    expect(await serving).toBe(0);
    await expect(main(["serve", "--a2a-push", "maybe"], captureIo(dir).io)).resolves.toBe(2);
  });
});
