// sema serve and sema token, in process, over a real SQLite file and a real socket.
import { mkdtempSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "./main.ts";
import { captureIo, until } from "./test-support/capture-io.ts";

const capture = (cwd: string, interrupt?: AbortSignal) =>
  captureIo(cwd, interrupt === undefined ? {} : { extra: { interrupt } });

/**
 * `sema serve --workers 0` in process over a fresh SQLite file, with one task created through the
 * API: an API-only node, where a task stays open until something else acts on it.
 */
async function apiOnlyNode(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const db = join(dir, "sema.db");
  const script = join(dir, "turns.json");
  writeFileSync(script, JSON.stringify({ turns: [{ text: "never here" }] }));
  const stop = new AbortController();
  const c = capture(dir, stop.signal);
  const serving = main(["serve", "--port", "0", "--workers", "0", "--db", db, "--model", `script:${script}`], c.io);
  await until(() => /Bearer <token>/.test(c.out()));
  const url = /serving (http:\/\/\S+)/.exec(c.out())?.[1] ?? "";
  const token = /\n\n {2}(\S+)\n\n/.exec(c.out())?.[1] ?? "";
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const created = await fetch(`${url}/v1/tasks`, {
    method: "POST",
    headers,
    body: JSON.stringify({ objective: "Wait" }),
  });
  const { taskId } = (await created.json()) as { taskId: string };
  return { dir, db, c, stop, serving, url, token, headers, taskId };
}

describe("sema serve", () => {
  it("serves the API with workers, prints a first token once, and stops gracefully", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sema-serve-"));
    const db = join(dir, "sema.db");
    const script = join(dir, "turns.json");
    writeFileSync(script, JSON.stringify({ turns: [{ text: "Served." }] }));
    const stop = new AbortController();
    const c = capture(dir, stop.signal);
    const serving = main(["serve", "--port", "0", "--db", db, "--model", `script:${script}`], c.io);
    await until(() => /Bearer <token>/.test(c.out()));
    const url = /serving (http:\/\/\S+)/.exec(c.out())?.[1] ?? "";
    const token = /\n\n {2}(\S+)\n\n/.exec(c.out())?.[1] ?? "";
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const created = await fetch(`${url}/v1/tasks`, {
      method: "POST",
      headers,
      body: JSON.stringify({ objective: "Say it" }),
    });
    expect(created.status).toBe(201);
    const { taskId } = (await created.json()) as { taskId: string };
    let task: { status?: string; result?: string } = {};
    await until(async () => {
      task = (await (await fetch(`${url}/v1/tasks/${taskId}`, { headers })).json()) as typeof task;
      return task.status === "completed";
    });
    expect(task.result).toBe("Served.");
    expect((await fetch(`${url}/v1/tasks`, { headers: { authorization: "Bearer nope" } })).status).toBe(401);
    stop.abort();
    expect(await serving).toBe(0);
    // A second start on the same file prints no new token.
    const again = new AbortController();
    const d = capture(dir, again.signal);
    const second = main(["serve", "--port", "0", "--db", db, "--model", `script:${script}`], d.io);
    await until(() => /serving/.test(d.out()));
    again.abort();
    expect(await second).toBe(0);
    expect(d.out()).not.toContain("First start");
    // It says where the console is, and how to get a token now that the first one was shown.
    expect(d.out()).toContain(`Console: http://127.0.0.1:`);
    expect(d.out()).toContain(
      `Tokens: the first start's was shown once; make another with: sema token create --principal local --db ${db}\n`,
    );
  });

  it("--workers 0 is an API-only node: tasks wait for workers elsewhere", async () => {
    const { dir, db, c, stop, serving, url, headers, taskId } = await apiOnlyNode("sema-serve-api-");
    expect(c.out()).toContain("no workers: API only");
    const read = async () =>
      (await (await fetch(`${url}/v1/tasks/${taskId}`, { headers })).json()) as { status: string; result?: string };
    expect((await read()).status).toBe("created");
    // A worker elsewhere (its own model script) runs it: had the API node run it, the result would be
    // the API node's script ("never here").
    const script = join(dir, "worker-turns.json");
    writeFileSync(script, JSON.stringify({ turns: [{ text: "Worked elsewhere." }] }));
    const stopWorker = new AbortController();
    const w = capture(dir, stopWorker.signal);
    const working = main(["worker", "--db", db, "--poll", "10", "--model", `script:${script}`], w.io);
    await until(async () => (await read()).status === "completed");
    expect((await read()).result).toBe("Worked elsewhere.");
    stopWorker.abort();
    expect(await working).toBe(0);
    stop.abort();
    expect(await serving).toBe(0);
  });

  it("sema token creates (printed once), lists and revokes tokens", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sema-token-"));
    const db = join(dir, "sema.db");
    const c = capture(dir);
    expect(
      await main(
        ["token", "create", "--principal", "acme", "--actor", "alice", "--role", "approver", "--db", db],
        c.io,
      ),
    ).toBe(0);
    const secret = c.out().trim();
    expect(secret).toMatch(/^sema_/);
    const l = capture(dir);
    expect(await main(["token", "list", "--db", db], l.io)).toBe(0);
    expect(l.out()).toContain("acme  alice  approver  live");
    expect(l.out()).not.toContain(secret);
    const id = l.out().split(/\s+/)[0] ?? "";
    const r = capture(dir);
    expect(await main(["token", "revoke", id, "--db", db], r.io)).toBe(0);
    const bad = capture(dir);
    expect(await main(["token", "create", "--principal", "acme", "--role", "root", "--db", db], bad.io)).toBe(2);
  });

  it("ends an open event stream once `sema token revoke` revokes its token on the shared file", async () => {
    // No workers: the task stays open, so only the revocation can end its stream.
    const { dir, db, stop, serving, url, token, headers, taskId } = await apiOnlyNode("sema-serve-revoke-");
    const stream = await fetch(`${url}/v1/tasks/${taskId}/events`, { headers });
    const reader = stream.body?.getReader();
    let text = "";
    let ended = false;
    const reading = (async () => {
      for (;;) {
        const next = await reader?.read();
        if (next === undefined || next.done) break;
        text += new TextDecoder().decode(next.value);
      }
      ended = true;
    })();
    await until(() => text.includes("event: task_created"));
    // Another store handle on the same file, as `sema token revoke` from another shell would be.
    const id = /^sema_([0-9a-f]{12})_/.exec(token)?.[1] ?? "";
    expect(await main(["token", "revoke", id, "--db", db], capture(dir).io)).toBe(0);
    await until(() => ended, 3000);
    await reading;
    expect(text).toMatch(/event: token_revoked\ndata: \{"reason":"token_revoked","lastSeq":\d+\}\n\n$/);
    stop.abort();
    expect(await serving).toBe(0);
  });

  it("a port in use: one line naming --port, exit 2, and the first token is not spent", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sema-serve-port-"));
    const db = join(dir, "sema.db");
    const script = join(dir, "turns.json");
    writeFileSync(script, JSON.stringify({ turns: [{ text: "x" }] }));
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as AddressInfo;
    const c = capture(dir);
    try {
      expect(await main(["serve", "--port", String(port), "--db", db, "--model", `script:${script}`], c.io)).toBe(2);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
    expect(c.err()).toBe(`sema: port ${port} is in use — use --port\n`);
    expect(c.out()).not.toContain("First start");
    // The next start, on a free port, still shows the first token.
    const stop = new AbortController();
    const d = capture(dir, stop.signal);
    const serving = main(["serve", "--port", "0", "--db", db, "--model", `script:${script}`], d.io);
    await until(() => /serving/.test(d.out()));
    stop.abort();
    expect(await serving).toBe(0);
    expect(d.out()).toContain('First start: a token for principal "local"');
  });

  it("--access-log: a short line per request, never the query string or the token", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sema-serve-log-"));
    const db = join(dir, "sema.db");
    const script = join(dir, "turns.json");
    writeFileSync(script, JSON.stringify({ turns: [{ text: "x" }] }));
    const stop = new AbortController();
    const c = capture(dir, stop.signal);
    const args = ["serve", "--port", "0", "--workers", "0", "--db", db, "--model", `script:${script}`];
    const serving = main([...args, "--access-log"], c.io);
    await until(() => /Bearer <token>/.test(c.out()));
    const url = /serving (http:\/\/\S+)/.exec(c.out())?.[1] ?? "";
    const token = /\n\n {2}(\S+)\n\n/.exec(c.out())?.[1] ?? "";
    const headers = { authorization: `Bearer ${token}` };
    expect((await fetch(`${url}/v1/tasks?limit=5`, { headers })).status).toBe(200);
    expect((await fetch(`${url}/v1/tasks?cursor=secret-cursor`, { headers })).status).toBe(400);
    expect((await fetch(`${url}/v1/tasks/nope`, { headers })).status).toBe(404);
    await until(() => c.out().includes("GET /v1/tasks/nope"));
    stop.abort();
    expect(await serving).toBe(0);
    const lines = c.out().split("\n");
    expect(lines).toContainEqual(expect.stringMatching(/^GET \/v1\/tasks 200 \d+ms$/));
    expect(lines).toContainEqual(expect.stringMatching(/^GET \/v1\/tasks 400 \d+ms$/));
    expect(lines).toContainEqual(expect.stringMatching(/^GET \/v1\/tasks\/nope 404 \d+ms$/));
    expect(c.out()).not.toContain("secret-cursor");
    expect(c.out().split(token).length).toBe(2); // only where the first start printed it

    // Off by default: the same requests log nothing.
    const again = new AbortController();
    const d = capture(dir, again.signal);
    const quiet = main(args, d.io);
    await until(() => /serving/.test(d.out()));
    const quietUrl = /serving (http:\/\/\S+)/.exec(d.out())?.[1] ?? "";
    expect((await fetch(`${quietUrl}/v1/tasks`, { headers })).status).toBe(200);
    again.abort();
    expect(await quiet).toBe(0);
    expect(d.out()).not.toMatch(/^GET /m);
  });
});
