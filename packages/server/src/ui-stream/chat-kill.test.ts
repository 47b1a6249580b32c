/**
 * A server killed (SIGKILL) mid-turn and started again on the same SQLite file: the AI SDK client's
 * resume (`useChat({ resume: true })` on reload) re-reads the turn from the log, the recovered leg
 * streams to the end, and the message holds the answer once. Real processes, a real socket.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { UIMessage } from "ai";
import { afterAll, describe, expect, it } from "vitest";
import { TestChat } from "../test-support/ai-chat.ts";
import { until } from "../test-support/until.ts";

const SLOW_ANSWER = "Every step of this answer arrives slowly, so the process can die in the middle of it.";
const CHILD = fileURLToPath(new URL("../test-support/chat-serve-child.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "sema-chat-kill-"));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** Start the child on `db`; resolves with its URL and a token once it listens. */
function start(db: string): Promise<{ child: ChildProcess; url: string; token: string }> {
  const child = spawn(process.execPath, ["--conditions=source", "--no-warnings", CHILD, db, SLOW_ANSWER], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    child.stderr?.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.on("exit", (code) => reject(new Error(`the server exited (${code}): ${out}`)));
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /ready (\S+) (\S+)\n/.exec(out);
      if (ready?.[1] !== undefined && ready[2] !== undefined) resolve({ child, url: ready[1], token: ready[2] });
    });
  });
}

const text = (message: UIMessage | undefined) =>
  (message?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");

describe("a chat across a killed server", () => {
  it("resumes the turn from the log after SIGKILL and a restart, the answer once", { timeout: 60_000 }, async () => {
    const db = join(dir, "sema.db");
    let server = await start(db);
    const chat = new TestChat({ id: "killed-chat", base: () => server.url, token: server.token });
    const sent = chat.sendMessage({ text: "Tell me slowly." }).catch(() => undefined);
    const reply = () => chat.messages.find((message) => message.role === "assistant");
    await until(() => text(reply()).length > 6, "the answer to start streaming");
    expect(text(reply()).length).toBeLessThan(SLOW_ANSWER.length);
    const died = new Promise((resolve) => server.child.once("exit", resolve));
    server.child.kill("SIGKILL");
    await died;
    await sent;

    server = await start(db);
    // The client keeps its token: the token store is in the same file; only the address changed.
    await chat.resumeStream();
    await until(() => text(reply()) === SLOW_ANSWER && chat.status === "ready", "the recovered turn to finish", 30_000);
    expect(chat.messages.filter((message) => message.role === "assistant")).toHaveLength(1);
    const transcript = (await (
      await fetch(`${server.url}/v1/chat/killed-chat/messages`, {
        headers: { authorization: `Bearer ${server.token}` },
      })
    ).json()) as UIMessage[];
    expect(text(transcript.find((message) => message.role === "assistant"))).toBe(SLOW_ANSWER);
  });
});
