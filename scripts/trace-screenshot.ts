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
import { statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { serveStudio, until } from "./studio-serve.ts";

const OUT = process.argv[2] ?? fileURLToPath(new URL("../docs/public/observability-trace.png", import.meta.url));

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

// The file tools work in the principal's workspace: the first token's principal is "local".
const studio = await serveStudio(
  "sema-trace-shot-",
  TURNS,
  "# Release meeting\n\nWe ship on Friday. Ana writes the release notes. Retro on Monday.\n",
);
try {
  const { url, token, api } = studio;
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

  const browser = await studio.browser();
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
  await studio.close();
}
