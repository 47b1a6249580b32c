/**
 * `sema demo`: an offline run on `ScriptedModel` over a real SQLite file. A verified user steers
 * mid-turn, the run is interrupted (the process keeps nothing), a follow-up is queued while it is
 * parked, a fresh harness resumes it from the file, and the inputs are shown exactly as the model
 * received them: labelled, framed, byte for byte. Writing the summary file needs an approval,
 * which the demo grants as the local user, and the approved call runs with exactly that input.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Agent, interrupt, runLeg, type Store, type StoredEvent, sendInput, startTask } from "@sema-agent/core";
import { ScriptedModel, type ScriptStep } from "@sema-agent/core/testing";
import { SqliteStore } from "@sema-agent/sqlite";
import { askApprovals } from "../approvals.ts";
import type { CliIo } from "../context.ts";
import { defaultAgent } from "../default-agent.ts";
import { Renderer } from "../render.ts";

const alice = { id: "alice@example.com", verified: true, issuer: "sema-token" };

function script(store: Store, taskId: () => string, once: { interrupted: boolean }): ScriptStep[] {
  return [
    { text: "I'll look at the workspace first.", toolCalls: [{ name: "list_dir", input: { path: "." } }] },
    async () => {
      // Alice, signed in through a serving layer, steers while the agent works.
      await sendInput(store, taskId(), { text: "Please focus on notes.txt only.", actor: alice });
      return { text: "Reading the notes.", toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] };
    },
    async () => {
      // The first time this turn is asked for, the person interrupts (like Ctrl-C, from any
      // process); the turn in flight is discarded and the resumed leg asks for it again.
      const first = !once.interrupted;
      if (first) {
        once.interrupted = true;
        await interrupt(store, taskId());
      }
      return {
        text: "Focusing on notes.txt as asked.",
        toolCalls: [{ name: "search_text", input: { pattern: "TODO", path: "notes.txt" } }],
        delayMs: first ? 5000 : 0,
      };
    },
    { text: "notes.txt has 2 TODOs: ship the demo, write the docs." },
    {
      toolCalls: [
        { name: "write_file", input: { path: "summary.txt", content: "2 TODOs: ship the demo, write the docs.\n" } },
      ],
    },
    { text: "Wrote the summary to summary.txt." },
  ];
}

function heading(io: CliIo, text: string): void {
  io.stdout.write(`\n── ${text}\n`);
}

function framesReceived(events: StoredEvent[]): string {
  const carriers = new Map<string, string>();
  for (const e of events) if (e.type === "human_input" && e.delivery === "applied") carriers.set(e.inputId, e.carrier);
  return events
    .filter((e) => e.type === "user_message")
    .map((e) => {
      if (e.type !== "user_message") return "";
      const carrier = carriers.get(e.inputIds[0] ?? "") ?? "?";
      return `[${carrier}]\n${e.content
        .split("\n")
        .map((line) => `  │ ${line}`)
        .join("\n")}`;
    })
    .join("\n");
}

export async function demo(_argv: string[], io: CliIo): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "sema-demo-"));
  const workspace = join(dir, "workspace");
  const dbFile = join(dir, "sema.db");
  try {
    mkdirSync(workspace);
    writeFileSync(join(workspace, "notes.txt"), "Release plan\nTODO: ship the demo\nTODO: write the docs\n");
    writeFileSync(join(workspace, "README.md"), "# Demo workspace\n");

    const first = new SqliteStore({ path: dbFile });
    let taskId = "";
    const once = { interrupted: false };
    const agentOf = (store: Store): Agent =>
      defaultAgent(
        new ScriptedModel(
          script(store, () => taskId, once),
          { id: "script:demo", mode: "by-transcript" },
        ),
        workspace,
      );
    taskId = await startTask(first, { objective: "Summarize the TODOs in this workspace.", model: "script:demo" });
    io.stdout.write(`Sema demo — offline, scripted model, SQLite file ${dbFile}\n`);
    heading(io, `leg 1: task ${taskId} starts; Alice steers mid-turn; then an interrupt`);
    const renderer = new Renderer(io.stdout);
    const parked = await runLeg({ store: first, agent: agentOf(first), emit: renderer.emit }, taskId);
    renderer.finish();
    await first.close();
    io.stdout.write(
      `(leg 1 ended: ${parked.status}${parked.parkedReason === undefined ? "" : `:${parked.parkedReason}`}; this process now holds nothing of the task)\n`,
    );

    heading(io, "while parked: a follow-up is queued for when the agent would finish");
    const second = new SqliteStore({ path: dbFile });
    const queued = await sendInput(second, taskId, {
      text: "Then write a one-line summary to summary.txt.",
      carrier: "nextTurn",
    });
    io.stdout.write(`input ${queued.inputId}: ${queued.delivery}\n`);

    heading(io, "leg 2: a fresh harness resumes the task from the SQLite file");
    const renderer2 = new Renderer(io.stdout);
    const waiting = await runLeg({ store: second, agent: agentOf(second), emit: renderer2.emit }, taskId);
    renderer2.finish();
    io.stdout.write(
      `(leg 2 ended: ${waiting.status}${waiting.parkedReason === undefined ? "" : `:${waiting.parkedReason}`})\n`,
    );

    heading(io, "an approval: writing a file needs a person's yes, bound to the exact input");
    // What `sema run` asks at the terminal; the demo answers yes as the local user.
    await askApprovals(io, second, taskId, async (question) => {
      io.stdout.write(`${question}y\n`);
      return "y";
    });

    heading(io, "leg 3: the approved call runs with exactly the input that was approved");
    const renderer3 = new Renderer(io.stdout);
    const done = await runLeg({ store: second, agent: agentOf(second), emit: renderer3.emit }, taskId);
    renderer3.finish();
    io.stdout.write(`(task ${done.status}: ${done.result ?? ""})\n`);

    heading(io, "what the model received for each human input (exact bytes)");
    io.stdout.write(`${framesReceived(await second.read(taskId))}\n`);
    await second.close();
    io.stdout.write(`\nInspect it yourself: sema events ${taskId} --db ${dbFile}\n`);
    return done.status === "completed" ? 0 : 1;
  } finally {
    // Keep the database so the printed command works; the workspace files are only for the demo.
    rmSync(workspace, { recursive: true, force: true });
  }
}
