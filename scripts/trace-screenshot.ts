/**
 * Regenerates docs/public/observability-trace.png, the Observability guide's picture of a task's
 * trace: a real `sema serve` (the CLI from its sources, a SQLite store in a temporary folder, a
 * scripted model) runs a task that reads a file, takes a steer while it works and waits for the
 * approval of a write; once it has finished, headless Chromium opens the console's Trace view of
 * it, selects the approved call and saves the page.
 *
 *   npm run docs:trace-screenshot                 # writes docs/public/observability-trace.png
 *   npm run docs:trace-screenshot -- out.png      # or anywhere else
 *
 * Needs Chromium (`/usr/bin/chromium`, or SEMA_CHROMIUM). Offline: nothing is downloaded.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { workspaceName } from "../packages/cli/src/tools/workspaces.ts";

const SEMA = fileURLToPath(new URL("../packages/cli/src/test-support/sema-node.ts", import.meta.url));
const OUT = process.argv[2] ?? fileURLToPath(new URL("../docs/public/observability-trace.png", import.meta.url));
const CHROMIUM = process.env.SEMA_CHROMIUM ?? "/usr/bin/chromium";

/** The model's turns: a read while the text streams (slowly enough to steer), a write, an answer. */
const TURNS = {
  turns: [
    {
      text: "Reading the meeting notes before I change anything.",
      chunkSize: 2,
      deltaDelayMs: 45,
      toolCalls: [{ name: "read_file", input: { path: "notes.md" } }],
    },
    {
      delayMs: 700,
      text: "Writing the summary, three bullet points as asked.",
      toolCalls: [
        {
          name: "write_file",
          input: { path: "summary.md", content: "- Ship on Friday\n- Ana owns the release notes\n- Retro on Monday\n" },
        },
      ],
    },
    { delayMs: 500, text: "Done: summary.md has the three decisions from the notes." },
  ],
};

/** Polls `check` every 50 ms until it returns something, for at most `ms`. */
async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const dir = mkdtempSync(join(tmpdir(), "sema-trace-shot-"));
let server: ChildProcess | undefined;
let browser: Awaited<ReturnType<typeof chromium.launch>> | undefined;
try {
  writeFileSync(join(dir, "turns.json"), JSON.stringify(TURNS));
  // The file tools work in the principal's workspace: the first token's principal is "local".
  const workspace = join(dir, "workspaces", workspaceName("local"));
  mkdirSync(workspace, { recursive: true });
  writeFileSync(
    join(workspace, "notes.md"),
    "# Release meeting\n\nWe ship on Friday. Ana writes the release notes. Retro on Monday.\n",
  );
  // Without this shell's OTEL_* variables: the picture is of the console, not of an exporter.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("OTEL_")));
  server = spawn(
    process.execPath,
    [SEMA, "serve", "--port", "0", "--workspaces", "workspaces", "--model", "script:turns.json"],
    {
      cwd: dir,
      env: { ...env, SEMA_STORE_URL: "", SEMA_DB: "" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  server.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  server.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await until("sema serve", () => (/Bearer <token>/.test(output) ? true : undefined));
  const url = /serving (http:\/\/\S+)/.exec(output)?.[1] ?? "";
  const token = /\n\n {2}(\S+)\n\n/.exec(output)?.[1] ?? "";
  const api = async <T>(path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  type Detail = { status: string; pendingApprovals: { callId: string; digest: string }[] };
  const { taskId } = await api<{ taskId: string }>("/v1/tasks", {
    objective: "Summarise the release meeting notes into summary.md",
  });
  const task = `/v1/tasks/${encodeURIComponent(taskId)}`;
  // A steer while the first turn streams: it reaches the model at the next step.
  await until("the first leg", async () => {
    const page = await api<{ events: { type: string }[] }>(`${task}/events?format=json&limit=1000`);
    return page.events.some((event) => event.type === "leg_started") ? true : undefined;
  });
  await api(`${task}/inputs`, { text: "Keep it to three bullet points.", carrier: "steer" });
  const pending = await until("the approval", async () => (await api<Detail>(task)).pendingApprovals[0]);
  await api(`${task}/approvals/${encodeURIComponent(pending.callId)}`, { decision: "approve", digest: pending.digest });
  await until("the task to finish", async () => ((await api<Detail>(task)).status === "completed" ? true : undefined));

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 2 });
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto(`${url}/#task=${encodeURIComponent(taskId)}&view=trace`);
  await page.fill("#token", token);
  await page.click("#sign-in-form button");
  await page.locator('.wf-row[data-kind="agent"]:not([data-open])').waitFor();
  await page.locator(".wf-row", { hasText: "execute_tool write_file" }).locator(".wf-label").click();
  await page.locator("#span-detail").waitFor({ state: "visible" });
  await page.locator("#stream-state", { hasText: "ended" }).waitFor();
  // The task's part of the page: its status, the views and the trace with the chosen span.
  const box = await page.locator("#task").boundingBox();
  if (box === null) throw new Error("the task is not shown");
  const margin = 16;
  await page.screenshot({
    path: OUT,
    fullPage: true,
    clip: { x: box.x - margin, y: box.y - margin, width: box.width + 2 * margin, height: box.height + 2 * margin },
  });
  console.log(`wrote ${OUT} (${Math.round(statSync(OUT).size / 1024)} KiB), task ${taskId}`);
} finally {
  await browser?.close();
  server?.kill("SIGTERM");
  if (server !== undefined && server.exitCode === null) await new Promise((resolve) => server?.once("exit", resolve));
  rmSync(dir, { recursive: true, force: true });
}
