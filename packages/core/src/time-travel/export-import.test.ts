import { describe, expect, it } from "vitest";
import { MemoryStore } from "../adapters/memory-store.ts";
import { canonicalJson } from "../core/canonical-json.ts";
import { fold } from "../core/fold.ts";
import { runLeg } from "../harness/leg/run-leg.ts";
import { startTask } from "../harness/tasks/start-task.ts";
import { sha256Hex } from "../harness/tools/approvals.ts";
import type { JsonValue } from "../protocol/json.ts";
import { ScriptedModel } from "../testing/scripted-model.ts";
import { exportTask } from "./export-task.ts";
import { importTask, parseExport } from "./import-task.ts";
import { recordTrip } from "./recorded-task.fixture.ts";
import { unstamped } from "./unstamped.ts";

/** A file with `edit` applied to its lines and the end line's digest made to match again. */
async function resealed(text: string, edit: (lines: string[]) => string[]): Promise<string> {
  const lines = edit(text.trimEnd().split("\n").slice(0, -1));
  const end = JSON.parse(text.trimEnd().split("\n").at(-1) as string) as { [key: string]: JsonValue };
  const body = lines.map((line) => `${line}\n`).join("");
  return `${body}${canonicalJson({ ...end, sha256: await sha256Hex(body) })}\n`;
}

describe("exportTask and importTask", () => {
  it("carry a task and its children to another store whole: same events, fresh ids, the importer's principal", async () => {
    const source = new MemoryStore();
    const { taskId } = await recordTrip(source);
    const file = await exportTask(source, taskId, { withChildren: true });
    const lines = file.trimEnd().split("\n");
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      kind: "header",
      v: 1,
      rootTaskId: taskId,
      blobs: "included",
    });
    expect(JSON.parse(lines.at(-1) as string)).toMatchObject({ kind: "end", tasks: 2 });

    const home = new MemoryStore();
    const imported = await importTask(home, file, { principal: "me" });
    expect(imported.tasks).toHaveLength(2);
    expect(imported.taskId).not.toBe(taskId);
    const original = await source.read(taskId);
    const copy = await home.read(imported.taskId);
    const child = imported.tasks[1];
    const renamed = original.map((e) =>
      e.type === "child_task" ? { ...unstamped(e), childTaskId: child?.to } : unstamped(e),
    );
    expect(copy.slice(0, original.length).map(unstamped).slice(1)).toEqual(renamed.slice(1));
    expect(copy[0]).toMatchObject({ type: "task_created", principal: "me" });
    expect(copy.at(-1)).toMatchObject({
      type: "task_forked",
      origin: "import",
      source: { taskId, seq: original.length },
    });
    const record = await home.getTask(imported.taskId);
    expect(record).toMatchObject({ principal: "me", summary: { status: "completed" } });
    // The child came along, under the new parent, and the parent's log names it by its new id.
    expect(child?.to.startsWith(`${imported.taskId}~`)).toBe(true);
    expect(await home.getTask(child?.to as string)).toMatchObject({ parentTaskId: imported.taskId });
    expect(fold(await home.read(child?.to as string)).parentTaskId).toBe(imported.taskId);
    expect(copy.find((e) => e.type === "child_task")).toMatchObject({ childTaskId: child?.to });
    expect(fold(copy).result).toBe(fold(original).result);
    // Nothing in the file is spent again.
    expect((await home.usage({ principal: "me", sinceMs: 0 })).buckets).toEqual([]);
  });

  it("includes the bytes of images and checks them on import", async () => {
    const source = new MemoryStore();
    const png = Uint8Array.from([137, 80, 78, 71, 13, 10, 26, 10, 1, 2, 3]);
    const taskId = await startTask(source, {
      objective: [
        { type: "text", text: "What is in this picture?" },
        { type: "image", data: png, mediaType: "image/png" },
      ],
    });
    await runLeg({ store: source, agent: { model: new ScriptedModel([{ text: "A cat." }]) } }, taskId);
    const file = await exportTask(source, taskId);
    const blob = file.split("\n").find((line) => line.includes('"kind":"blob"'));
    expect(blob).toBeDefined();
    const home = new MemoryStore();
    const { taskId: copy } = await importTask(home, file);
    const digest = (JSON.parse(blob as string) as { digest: string }).digest;
    expect(await home.getBlob(digest)).toEqual(png);
    expect(fold(await home.read(copy)).transcript[0]).toEqual(fold(await source.read(taskId)).transcript[0]);
    const swapped = await resealed(file, (lines) =>
      lines.map((line) =>
        line.includes('"kind":"blob"') ? line.replace(/"base64":"[^"]*"/, '"base64":"AAAA"') : line,
      ),
    );
    await expect(parseExport(swapped)).rejects.toThrow(/line \d+: the bytes of blob .* do not match its digest/);
  });

  it("refuses a malformed or tampered file with the line and the reason, and writes nothing", async () => {
    const source = new MemoryStore();
    const { taskId } = await recordTrip(source);
    const file = await exportTask(source, taskId);
    const lines = file.trimEnd().split("\n");
    const cases: [string, string | Promise<string>, RegExp][] = [
      ["empty", "", /line 1/],
      ["not JSON", file.replace(lines[3] as string, "{oops"), /line 4: not JSON/],
      ["edited", file.replace("Plan the trip to Lisbon", "Plan the trip to Porto"), /SHA-256 .* does not match/],
      ["cut short", `${lines.slice(0, 10).join("\n")}\n`, /end line is missing/],
      ["after the end", `${file}{"kind":"header"}\n`, /nothing may follow the end line/],
      [
        "an invalid event, resealed",
        resealed(file, (ls) => ls.map((l) => l.replace('"type":"model_turn"', '"type":"model_turnn"'))),
        /line \d+: invalid model_turnn event/,
      ],
      [
        "a seq out of order, resealed",
        resealed(file, (ls) => [...ls.slice(0, 3), ls[4] as string, ls[3] as string, ...ls.slice(5)]),
        /line 4: seq 3 where 2 was due/,
      ],
      [
        "another task's event, resealed",
        resealed(file, (ls) => ls.map((l) => l.replace(`"taskId":"${taskId}"`, '"taskId":"x"'))),
        /line 2: .*first task must be the header's root/,
      ],
      ["a wrong count, resealed", resealed(file, (ls) => ls.slice(0, -1)), /events, its line says/],
    ];
    const home = new MemoryStore();
    for (const [name, text, reason] of cases) {
      await expect(importTask(home, await text), name).rejects.toMatchObject({
        code: "InvalidInput",
        message: expect.stringMatching(reason),
      });
    }
    expect((await home.listTasks({ principal: "acme" })).tasks).toEqual([]);
  });

  it("is refused for another principal as for an unknown task", async () => {
    const source = new MemoryStore();
    const { taskId } = await recordTrip(source);
    await expect(exportTask(source, taskId, { principal: "mallory" })).rejects.toMatchObject({ code: "TaskNotFound" });
  });
  it("runs no call on a decision the file carries: an approved call not yet run waits for the importer's people", async () => {
    const source = new MemoryStore();
    const { taskId } = await recordTrip(source);
    const events = await source.read(taskId);
    const decided = events.find((e) => e.type === "approval_decided");
    if (decided?.type !== "approval_decided") throw new Error("no decision");
    // The trip as it stood between the decision and the booking (as a file anyone could write).
    const [created, ...more] = events.slice(0, decided.seq).map(unstamped);
    if (created?.type !== "task_created") throw new Error("no creation");
    await source.createTask({ taskId: "mid", created, more });
    const home = new MemoryStore();
    const imported = await importTask(home, await exportTask(source, "mid"), { principal: "me" });
    const record = await home.getTask(imported.taskId);
    expect(record.summary).toMatchObject({ status: "parked", parkedReason: "approval", runnable: false });
    expect(record.summary.openApprovals).toEqual([decided.callId]);
    expect(fold(await home.read(imported.taskId)).approvals[0]?.decision).toBeUndefined();
  });
  it("refuses parent links that do not run from parent to child, naming the line, and writes nothing", async () => {
    const source = new MemoryStore();
    const { taskId } = await recordTrip(source);
    const file = await exportTask(source, taskId, { withChildren: true });
    const lines = file.trimEnd().split("\n");
    const childLine = lines.findIndex((line) => line.includes('"kind":"task"') && line.includes('"parentTaskId"'));
    const home = new MemoryStore();
    const refusals: [string, (ls: string[]) => string[]][] = [
      // The root made a child of its own child.
      [
        "line 3: task",
        (ls) =>
          ls.map((line, i) => {
            if (i !== 2) return line;
            const parsed = JSON.parse(line) as { event: { parentTaskId?: string } };
            const child = JSON.parse(lines[childLine] as string) as { taskId: string };
            parsed.event.parentTaskId = child.taskId;
            return canonicalJson(parsed as unknown as JsonValue);
          }),
      ],
      // A child whose line names no parent before it.
      [
        `line ${childLine + 1}: task`,
        (ls) =>
          ls.map((line, i) => {
            if (i !== childLine) return line;
            const parsed = JSON.parse(line) as { parentTaskId?: string };
            parsed.parentTaskId = "elsewhere";
            return canonicalJson(parsed as unknown as JsonValue);
          }),
      ],
      // A child whose log names another parent than its line.
      [
        `line ${childLine + 2}: task_created names another parent`,
        (ls) =>
          ls.map((line, i) => {
            if (i !== childLine + 1) return line;
            const parsed = JSON.parse(line) as { event: { parentTaskId?: string } };
            parsed.event.parentTaskId = "elsewhere";
            return canonicalJson(parsed as unknown as JsonValue);
          }),
      ],
    ];
    for (const [message, edit] of refusals) {
      const forged = await resealed(file, edit);
      await expect(importTask(home, forged)).rejects.toThrow(message);
    }
    expect((await home.listTasks({ principal: "acme" })).tasks).toEqual([]);
  });
});
