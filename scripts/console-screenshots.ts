/**
 * Regenerates the studio's pictures in docs/public (docs/guide/studio.md shows them): each main
 * view of the web console, light and dark. A real `sema serve` (the CLI from its sources, SQLite
 * in a temporary folder, a scripted model, the file tools) runs two tasks: one reads a file, takes
 * a steer while it streams, waits for the approval of a write, finishes with a Markdown answer and
 * is continued once; the other is left waiting for its approval, for the inbox. Headless Chromium
 * then saves the task list with the conversation, the trace, the approvals inbox and the agents.
 * The experiment views (the list, one experiment, a comparison) come from a second, in-process
 * server with two runs of one dataset that differ (experiments-studio.ts).
 *
 *   npm run docs:console-screenshots              # writes docs/public/studio-<view>-<theme>.png
 *   npm run docs:console-screenshots -- out-dir   # or into another folder
 *
 * Needs Chromium (`/usr/bin/chromium`, or SEMA_CHROMIUM). Offline: nothing is downloaded.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { serveExperiments } from "./experiments-studio.ts";
import { serveStudio, until } from "./studio-serve.ts";

const OUT = process.argv[2] ?? fileURLToPath(new URL("../docs/public/", import.meta.url));

/** Every task's turns (by transcript): a read while the text streams, a write, an answer, a follow-up. */
const TURNS = {
  turns: [
    {
      text: "Reading the meeting notes before I change anything.",
      chunkSize: 2,
      deltaDelayMs: 45,
      toolCalls: [{ name: "read_file", input: { path: "notes.md" } }],
    },
    {
      delayMs: 500,
      text: "Writing the summary, three bullet points as asked.",
      toolCalls: [
        {
          name: "write_file",
          input: { path: "summary.md", content: "- Ship on Friday\n- Ana owns the release notes\n- Retro on Monday\n" },
        },
      ],
    },
    {
      delayMs: 300,
      text: "Done: **summary.md** has the three decisions from the notes:\n\n1. Ship on Friday\n2. Ana owns the release notes\n3. Retro on Monday\n\nSee the [release checklist](https://example.com/release) for what comes next.",
    },
    { delayMs: 300, text: "The retro is on **Monday at 10:00**, in the usual room." },
  ],
};

const studio = await serveStudio(
  "sema-studio-shot-",
  TURNS,
  "# Release meeting\n\nWe ship on Friday. Ana writes the release notes. Retro on Monday at 10:00.\n",
);
try {
  const { url, token, api } = studio;
  type Detail = { status: string; lastSeq: number; pendingApprovals: { callId: string; digest: string }[] };
  const create = async (objective: string) => (await api<{ taskId: string }>("/v1/tasks", { objective })).taskId;
  const pendingOf = (task: string) => until("the approval", async () => (await api<Detail>(task)).pendingApprovals[0]);

  const taskId = await create("Summarise the release meeting notes into summary.md");
  const task = `/v1/tasks/${encodeURIComponent(taskId)}`;
  await until("the first leg", async () => {
    const page = await api<{ events: { type: string }[] }>(`${task}/events?format=json&limit=1000`);
    return page.events.some((event) => event.type === "leg_started") ? true : undefined;
  });
  await api(`${task}/inputs`, { text: "Keep it to three bullet points.", carrier: "steer" });
  const pending = await pendingOf(task);
  await api(`${task}/approvals/${encodeURIComponent(pending.callId)}`, {
    decision: "approve",
    digest: pending.digest,
    reason: "The summary is what I asked for",
  });
  await until("the task to finish", async () => ((await api<Detail>(task)).status === "completed" ? true : undefined));
  // Continued once it finished: the conversation goes on.
  const before = (await api<Detail>(task)).lastSeq;
  await api(`${task}/inputs`, { text: "When is the retro?" });
  await until("the follow-up", async () => {
    const detail = await api<Detail>(task);
    return detail.status === "completed" && detail.lastSeq > before + 3 ? true : undefined;
  });
  // A second task, left waiting for its approval: the inbox has something to decide.
  const other = await create("Draft the release announcement into announce.md");
  await pendingOf(`/v1/tasks/${encodeURIComponent(other)}`);

  const browser = await studio.browser();
  const shots: [string, (page: Page) => Promise<string | undefined>][] = [
    [
      "conversation",
      async (page) => {
        await page.goto(`${url}/#task=${encodeURIComponent(taskId)}`);
        await page.locator("#result", { hasText: "Monday at 10:00" }).waitFor();
        await page.locator(".msg.assistant", { hasText: "three decisions" }).waitFor();
        await page.locator("#stream-state", { hasText: "ended" }).waitFor();
        return "main";
      },
    ],
    [
      "trace",
      async (page) => {
        await page.goto(`${url}/#task=${encodeURIComponent(taskId)}&view=trace`);
        await page.locator('.wf-row[data-kind="agent"]:not([data-open])').waitFor();
        await page.locator(".wf-row", { hasText: "execute_tool write_file" }).locator(".wf-label").click();
        await page.locator("#span-detail").waitFor({ state: "visible" });
        return "#task";
      },
    ],
    [
      "approvals",
      async (page) => {
        await page.goto(`${url}/#approvals`);
        await page.locator(".inbox-item .approval").first().waitFor();
        return undefined;
      },
    ],
    [
      "agents",
      async (page) => {
        await page.goto(`${url}/#agents`);
        await page.locator("#agent-list > *").first().waitFor();
        return undefined;
      },
    ],
  ];
  const experiments = await serveExperiments();
  const { baseline, candidate } = experiments;
  const experimentShots: [string, (page: Page) => Promise<string | undefined>][] = [
    [
      "experiments",
      async (page) => {
        await page.goto(`${experiments.url}/#experiments`);
        await page.locator(`tr[data-experiment-id="${candidate}"]`).waitFor();
        return undefined;
      },
    ],
    [
      "experiment",
      async (page) => {
        await page.goto(`${experiments.url}/#experiment=${encodeURIComponent(candidate)}`);
        await page.locator('tr[data-case-id="spain"]').waitFor();
        return undefined;
      },
    ],
    [
      "compare",
      async (page) => {
        await page.goto(
          `${experiments.url}/#compare=${encodeURIComponent(baseline)}&with=${encodeURIComponent(candidate)}`,
        );
        await page.locator('tr[data-case-id="spain"][data-change="worse"]').waitFor();
        return undefined;
      },
    ],
  ];
  try {
    for (const theme of ["light", "dark"] as const) {
      await shoot(theme, url, token, shots);
      await shoot(theme, experiments.url, experiments.token, experimentShots);
    }
  } finally {
    await experiments.close();
  }

  /** Signs in to the console at `at` and saves each view of `views` in `theme`. */
  async function shoot(
    theme: "light" | "dark",
    at: string,
    secret: string,
    views: [string, (page: Page) => Promise<string | undefined>][],
  ): Promise<void> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, colorScheme: theme });
    const page = await context.newPage();
    await page.goto(`${at}/`);
    await page.fill("#token", secret);
    await page.click("#sign-in-form button");
    await page.locator("#workspace").waitFor({ state: "visible" });
    for (const [view, show] of views) {
      const region = await show(page);
      const path = join(OUT, `studio-${view}-${theme}.png`);
      const box = region === undefined ? null : await page.locator(region).boundingBox();
      await page.screenshot(
        box === null
          ? { path }
          : {
              path,
              fullPage: true,
              clip: { x: box.x - 8, y: box.y - 8, width: box.width + 16, height: box.height + 16 },
            },
      );
      console.log(`wrote ${path} (${Math.round(statSync(path).size / 1024)} KiB)`);
    }
    await context.close();
  }
} finally {
  await studio.close();
}
