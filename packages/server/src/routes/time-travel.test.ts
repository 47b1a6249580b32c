import { createHash } from "node:crypto";
import { MemoryStore, startTask } from "@sema-agent/core";
import { exportTask } from "@sema-agent/core/time-travel";
import { createAgentRegistry } from "@sema-agent/worker";
import { describe, expect, it } from "vitest";
import { TaskDetail, TaskPage } from "../schemas/tasks.ts";
import {
  APPROVAL_SCRIPT,
  type ApiFixture,
  apiFixture,
  createTask,
  json,
  runOnce,
  scriptedAgent,
} from "../test-support/api-fixture.ts";

interface Fork {
  taskId: string;
  sourceTaskId: string;
  seq: number;
  requestedSeq?: number;
  detachedChildren: string[];
}

/** A task of alice's run to its end ("done"), with its id. */
async function completedTask(fx: ApiFixture): Promise<string> {
  const taskId = await createTask(fx);
  await runOnce(fx, taskId);
  return taskId;
}

/** A task of alice's whose approval-gated call was approved by bob and ran: the log has its result. */
async function taskWithToolResult(fx: ApiFixture): Promise<string> {
  const taskId = await createTask(fx);
  await runOnce(fx, taskId);
  const detail = await json<{ pendingApprovals: { digest: string }[] }>(await fx.call("GET", `/v1/tasks/${taskId}`));
  const decided = await fx.call("POST", `/v1/tasks/${taskId}/approvals/call-1`, {
    token: fx.tokens.bob,
    body: { decision: "approve", digest: detail.pendingApprovals[0]?.digest },
  });
  expect(decided.status).toBe(200);
  await runOnce(fx, taskId);
  return taskId;
}

/** An export file whose lines were edited, with its end line's SHA-256 made to match again. */
function resealed(file: string, edit: (lines: string[]) => void): string {
  const lines = file.split("\n").slice(0, -1);
  const end = JSON.parse(lines.pop() ?? "{}") as Record<string, unknown>;
  edit(lines);
  const body = lines.map((line) => `${line}\n`).join("");
  return `${body}${JSON.stringify({ ...end, sha256: createHash("sha256").update(body).digest("hex") })}\n`;
}

async function fork(fx: ApiFixture, taskId: string, body: unknown = {}, token?: string) {
  return fx.call("POST", `/v1/tasks/${taskId}/fork`, { body, ...(token === undefined ? {} : { token }) });
}

describe("POST /v1/tasks/{taskId}/fork", () => {
  it("forks a task: 201 with a Location, the fork is parked, shows forkedFrom, is listed, and runs on a resume", async () => {
    const fx = await apiFixture();
    const source = await completedTask(fx);
    const response = await fork(fx, source, { atSeq: 5 });
    expect(response.status).toBe(201);
    const made = await json<Fork>(response);
    expect(made).toEqual({ taskId: expect.any(String), sourceTaskId: source, seq: 5, detachedChildren: [] });
    expect(response.headers.get("location")).toBe(`/v1/tasks/${made.taskId}`);
    // Cut inside the leg, after the objective's entry: nothing to do until someone asks.
    const record = await fx.store.getTask(made.taskId);
    expect(record.principal).toBe("acme");
    expect(record.summary.runnable).toBe(false);

    const detail = TaskDetail.parse(await json(await fx.call("GET", `/v1/tasks/${made.taskId}`)));
    expect(detail).toMatchObject({
      status: "parked",
      parkedReason: "forked",
      objective: "Do the thing",
      forkedFrom: { taskId: source, seq: 5, origin: "fork" },
    });
    const list = TaskPage.parse(await json(await fx.call("GET", "/v1/tasks")));
    expect(list.tasks.find((t) => t.taskId === made.taskId)?.forkedFrom).toEqual({
      taskId: source,
      seq: 5,
      origin: "fork",
    });
    expect(list.tasks.find((t) => t.taskId === source)?.forkedFrom).toBeUndefined();
    const forks = TaskPage.parse(await json(await fx.call("GET", `/v1/tasks/${source}/forks`)));
    expect(forks.tasks.map((t) => t.taskId)).toEqual([made.taskId]);

    expect((await fx.call("POST", `/v1/tasks/${made.taskId}/resume`)).status).toBe(202);
    await runOnce(fx, made.taskId);
    const done = TaskDetail.parse(await json(await fx.call("GET", `/v1/tasks/${made.taskId}`)));
    expect(done).toMatchObject({ status: "completed", result: "done" });
    // The source is only read.
    expect((await fx.store.getTask(source)).summary.status).toBe("completed");
  });

  it("a steer runs the fork on; the cut moves back to a step boundary and says so", async () => {
    const fx = await apiFixture();
    const source = await completedTask(fx);
    // Seq 4 is the applied input, whose transcript entry (seq 5) is still to come: not a boundary.
    const made = await json<Fork>(await fork(fx, source, { atSeq: 4 }));
    expect(made).toMatchObject({ seq: 3, requestedSeq: 4 });
    const steer = await fx.call("POST", `/v1/tasks/${made.taskId}/inputs`, { body: { text: "Go on" } });
    expect(steer.status).toBe(202);
    await runOnce(fx, made.taskId);
    expect((await fx.store.getTask(made.taskId)).summary.status).toBe("completed");
  });

  it("replaces an input, attributed to the caller, and tells this process's workers", async () => {
    const notified: string[] = [];
    const fx = await apiFixture({ app: { workers: { notify: (id) => notified.push(id), resume: () => {} } } });
    const source = await completedTask(fx);
    notified.length = 0;
    const response = await fork(
      fx,
      source,
      { edits: { input: { seq: 2, text: "Do the other\u0007 thing" } } },
      fx.tokens.bob,
    );
    expect(response.status).toBe(201);
    const made = await json<Fork>(response);
    expect(notified).toEqual([made.taskId]);
    const log = await fx.store.read(made.taskId);
    const marker = log.find((e) => e.type === "task_forked");
    expect(marker).toMatchObject({ replacedInput: { seq: 2 }, actor: { id: "bob", verified: true } });
    expect(log.at(-1)).toMatchObject({
      type: "human_input",
      delivery: "parked",
      source: "user",
      text: "Do the other thing",
      actor: { id: "bob", verified: true, issuer: "sema-token" },
    });
    await runOnce(fx, made.taskId);
    expect((await fx.store.getTask(made.taskId)).summary.status).toBe("completed");
  });

  it("replaces an input on the supervisor lane only for a supervisor; the operator lane for no one", async () => {
    const fx = await apiFixture();
    const source = await createTask(fx);
    const sent = await fx.call("POST", `/v1/tasks/${source}/inputs`, {
      token: fx.tokens.bob,
      body: { text: "Be brief", lane: "supervisor" },
    });
    expect(sent.status).toBe(202);
    const supervisorSeq = (await fx.store.read(source)).findLast((e) => e.type === "human_input")?.seq ?? 0;
    const edits = { input: { seq: supervisorSeq, text: "Be long" } };
    const refused = await fork(fx, source, { edits });
    expect(refused.status).toBe(403);
    expect(await json(refused)).toMatchObject({ error: { code: "Forbidden", details: { lane: "supervisor" } } });
    expect((await fork(fx, source, { edits }, fx.tokens.bob)).status).toBe(201);

    await fx.store.append(
      source,
      [
        {
          type: "human_input",
          v: 1,
          inputId: "op-1",
          carrier: "steer",
          source: "operator",
          delivery: "received",
          sessionSeq: 0,
          text: "Operator note",
        },
      ],
      { expectedSeq: (await fx.store.getTask(source)).lastSeq },
    );
    const operatorSeq = (await fx.store.getTask(source)).lastSeq;
    const operator = await fork(fx, source, { edits: { input: { seq: operatorSeq, text: "x" } } }, fx.tokens.bob);
    expect(operator.status).toBe(403);
    // Not a person's input at all: core's reason, a 400.
    const notInput = await fork(fx, source, { edits: { input: { seq: 1, text: "x" } } });
    expect(notInput.status).toBe(400);
    expect(await json(notInput)).toMatchObject({ error: { code: "InvalidInput" } });
  });

  it("replaces a tool result, and the diff of the two shows where they part", async () => {
    const fx = await apiFixture({ turns: APPROVAL_SCRIPT });
    const source = await taskWithToolResult(fx);
    const response = await fork(fx, source, { edits: { toolResult: { callId: "call-1", content: "disk full" } } });
    expect(response.status).toBe(201);
    const made = await json<Fork>(response);
    expect((await fx.store.read(made.taskId)).at(-1)).toMatchObject({
      type: "tool_result",
      callId: "call-1",
      status: "ok",
      content: "disk full",
    });
    await fx.call("POST", `/v1/tasks/${made.taskId}/resume`);
    await runOnce(fx, made.taskId);

    const diff = await json<{
      common: number;
      identical: boolean;
      a: { taskId: string };
      firstDivergence: { a: { kind: string; text: string }; b: { kind: string; text: string } };
    }>(await fx.call("GET", `/v1/tasks/${source}/diff/${made.taskId}`));
    expect(diff.a.taskId).toBe(source);
    expect(diff.identical).toBe(false);
    expect(diff.firstDivergence.a).toMatchObject({ kind: "tool", text: expect.stringContaining("wrote hello") });
    expect(diff.firstDivergence.b).toMatchObject({ kind: "tool", text: expect.stringContaining("disk full") });
    const same = await json<{ identical: boolean }>(await fx.call("GET", `/v1/tasks/${source}/diff/${source}`));
    expect(same.identical).toBe(true);
  });

  it("takes the served agent's own model, and refuses any other a caller names", async () => {
    const fx = await apiFixture();
    const source = await completedTask(fx);
    const other = await fork(fx, source, { edits: { model: "openai:gpt-5" } });
    expect(other.status).toBe(400);
    expect(await json(other)).toMatchObject({
      error: { code: "InvalidInput", details: { path: "body.edits.model", model: "script:inline" } },
    });
    const own = await fork(fx, source, { atSeq: 3, edits: { model: "script:inline" } });
    expect(own.status).toBe(201);
    const made = await json<Fork>(own);
    expect((await fx.store.read(made.taskId)).at(-1)).toMatchObject({ type: "task_forked", model: "script:inline" });
  });

  it("checks settings as at creation: provider options only where the agent allows them", async () => {
    const agent = { ...scriptedAgent([{ text: "done" }]), callerProviderOptions: { openai: ["reasoningEffort"] } };
    const fx = await apiFixture({ app: { agents: createAgentRegistry({ default: agent }) } });
    const source = await createTask(fx);
    const refused = await fork(fx, source, {
      edits: { settings: { providerOptions: { openai: { serviceTier: "x" } } } },
    });
    expect(refused.status).toBe(400);
    expect(await json(refused)).toMatchObject({
      error: { details: { path: "body.edits.settings.providerOptions.openai.serviceTier" } },
    });
    const reserved = await fork(fx, source, { edits: { settings: { providerOptions: { openai: { model: "x" } } } } });
    expect(reserved.status).toBe(400);
    const output = await fork(fx, source, { edits: { settings: { output: { type: "object" } } } });
    expect(output.status).toBe(400);
    const allowed = await fork(fx, source, {
      edits: { settings: { temperature: 0.1, providerOptions: { openai: { reasoningEffort: "low" } } } },
    });
    expect(allowed.status).toBe(201);
    const made = await json<Fork>(allowed);
    expect((await fx.store.read(made.taskId)).at(-1)).toMatchObject({
      type: "task_forked",
      settings: { temperature: 0.1, providerOptions: { openai: { reasoningEffort: "low" } } },
    });
  });

  it("counts like a creation against the concurrentTasks quota: 429 at it, nothing written", async () => {
    const fx = await apiFixture({ app: { quotas: { default: { concurrentTasks: 1 } } } });
    const waiting = await createTask(fx);
    const before = (await fx.store.listTasks({ principal: "acme" })).tasks.length;
    const refused = await fork(fx, waiting);
    expect(refused.status).toBe(429);
    expect(await json(refused)).toMatchObject({
      error: { code: "QuotaExceeded", details: { quota: "concurrentTasks" } },
    });
    expect((await fx.store.listTasks({ principal: "acme" })).tasks.length).toBe(before);
    await runOnce(fx, waiting);
    expect((await fork(fx, waiting, { atSeq: 3 })).status).toBe(201);
  });

  it("lists a task's forks a page at a time; an id with none, or another principal's, lists none", async () => {
    let ms = Date.parse("2026-01-01T00:00:00Z");
    const fx = await apiFixture({ store: new MemoryStore({ now: () => ms++ }) });
    const source = await completedTask(fx);
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await json<Fork>(await fork(fx, source, { atSeq: 3 }))).taskId);
    const first = TaskPage.parse(await json(await fx.call("GET", `/v1/tasks/${source}/forks?limit=2`)));
    expect(first.tasks.map((t) => t.taskId)).toEqual([made[2], made[1]]);
    const rest = TaskPage.parse(
      await json(
        await fx.call("GET", `/v1/tasks/${source}/forks?limit=2&cursor=${encodeURIComponent(first.nextCursor ?? "")}`),
      ),
    );
    expect(rest).toEqual({ tasks: [expect.objectContaining({ taskId: made[0] })] });
    const parked = TaskPage.parse(await json(await fx.call("GET", `/v1/tasks/${source}/forks?status=completed`)));
    expect(parked.tasks).toEqual([]);
    const theirs = await fx.call("GET", `/v1/tasks/${source}/forks`, { token: fx.tokens.mallory });
    expect(await json(theirs)).toEqual({ tasks: [] });
  });
});

describe("POST /v1/tasks/{taskId}/replay", () => {
  it("replays a completed task with its served agent: identical, and nothing written", async () => {
    const fx = await apiFixture({ turns: APPROVAL_SCRIPT });
    const taskId = await taskWithToolResult(fx);
    const before = await fx.store.read(taskId);
    const tasks = (await fx.store.listTasks({ principal: "acme" })).tasks.length;
    const response = await fx.call("POST", `/v1/tasks/${taskId}/replay`);
    expect(response.status).toBe(200);
    expect(await json(response)).toMatchObject({
      taskId,
      outcome: "identical",
      recordedTurns: 2,
      turns: [
        { turn: 1, verdict: "identical" },
        { turn: 2, verdict: "identical" },
      ],
    });
    expect(await fx.store.read(taskId)).toEqual(before);
    expect((await fx.store.listTasks({ principal: "acme" })).tasks.length).toBe(tasks);
  });

  it("reports a divergence when the served agent changed since", async () => {
    const store = new MemoryStore();
    const fx = await apiFixture({ store });
    const taskId = await completedTask(fx);
    const changed = { ...scriptedAgent([{ text: "done" }]), instructions: "Be terse." };
    const later = await apiFixture({ store, app: { agents: createAgentRegistry({ default: changed }) } });
    const report = await json<{ outcome: string; divergence: { parts: string[] } }>(
      await later.call("POST", `/v1/tasks/${taskId}/replay`),
    );
    expect(report).toMatchObject({ outcome: "diverged", divergence: { turn: 1, parts: ["system"] } });
  });

  it("is a 409 UnknownAgent when the task's agent is no longer served (and so is a fork of it)", async () => {
    const store = new MemoryStore();
    const agents = createAgentRegistry(
      { default: scriptedAgent([{ text: "done" }]), helper: scriptedAgent([{ text: "done" }], "helper") },
      "default",
    );
    const fx = await apiFixture({ store, app: { agents } });
    const created = await fx.call("POST", "/v1/tasks", { body: { objective: "x", agent: "helper" } });
    const { taskId } = await json<{ taskId: string }>(created);
    const later = await apiFixture({ store });
    for (const [method, path] of [
      ["POST", `/v1/tasks/${taskId}/replay`],
      ["POST", `/v1/tasks/${taskId}/fork`],
    ] as const) {
      const response = await later.call(method, path);
      expect(response.status, path).toBe(409);
      expect(await json(response), path).toMatchObject({
        error: { code: "UnknownAgent", details: { taskId, agent: "helper", agents: ["default"] } },
      });
    }
  });

  it("runs one replay per principal at a time, and maxConcurrentReplays in all: 429 past either", async () => {
    // A replay reads the whole log (no limit) once it holds its slot: held there, the slot stays
    // taken while the second request comes, whatever the scheduling (a replay that needs no
    // macrotask would otherwise end before the second request asks).
    let gate: Promise<void> | undefined;
    let entered = () => {};
    const inner = new MemoryStore();
    const store = new Proxy(inner, {
      get(target, key) {
        if (key === "read")
          return async (...args: Parameters<MemoryStore["read"]>) => {
            if (gate !== undefined && args[1]?.limit === undefined) {
              entered();
              await gate;
            }
            return target.read(...args);
          };
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const fx = await apiFixture({ store, app: { limits: { maxConcurrentReplays: 1 } } });
    const mine = await completedTask(fx);
    const theirs = await createTask(fx, "theirs", fx.tokens.mallory);
    await runOnce(fx, theirs);
    const replay = (id: string, token: string) => fx.call("POST", `/v1/tasks/${id}/replay`, { token });
    /** The first replay held in its slot while the second asks; then let go. */
    async function whileHeld(first: () => Promise<Response>, second: () => Promise<Response>) {
      let open = () => {};
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      const inside = new Promise<void>((resolve) => {
        entered = resolve;
      });
      const running = first();
      await inside;
      const refused = await second();
      open();
      gate = undefined;
      return [(await running).status, refused] as const;
    }
    const [firstStatus, limited] = await whileHeld(
      () => replay(mine, fx.tokens.alice),
      () => replay(mine, fx.tokens.bob),
    );
    expect([firstStatus, limited.status]).toEqual([200, 429]);
    expect(limited.headers.get("retry-after")).toBe("1");
    expect(await limited.json()).toMatchObject({ error: { code: "RateLimited" } });
    const [mineStatus, other] = await whileHeld(
      () => replay(mine, fx.tokens.alice),
      () => replay(theirs, fx.tokens.mallory),
    );
    expect([mineStatus, other.status]).toEqual([200, 429]);
    // The slots are given back: one at a time, each passes.
    expect((await replay(mine, fx.tokens.alice)).status).toBe(200);
    expect((await replay(theirs, fx.tokens.mallory)).status).toBe(200);
  });
});

describe("GET /v1/tasks/{taskId}/export and POST /v1/tasks/import", () => {
  it("exports byte for byte what exportTask writes, as JSON Lines", async () => {
    const clock = () => Date.parse("2026-12-01T12:00:00.000Z");
    const fx = await apiFixture({ turns: APPROVAL_SCRIPT, app: { clock } });
    const taskId = await taskWithToolResult(fx);
    const response = await fx.call("GET", `/v1/tasks/${taskId}/export`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/jsonl; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="${taskId}.jsonl"`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    const expected = await exportTask(fx.store, taskId, { now: clock });
    expect(Buffer.from(bytes).equals(Buffer.from(expected, "utf8"))).toBe(true);
    const withChildren = await fx.call("GET", `/v1/tasks/${taskId}/export?withChildren=true`);
    expect(await withChildren.text()).toBe(await exportTask(fx.store, taskId, { now: clock, withChildren: true }));
  });

  it("imports a file as the importing supervisor's principal, under fresh ids; the import replays identical", async () => {
    const fx = await apiFixture({ turns: APPROVAL_SCRIPT });
    const source = await taskWithToolResult(fx);
    const file = await (await fx.call("GET", `/v1/tasks/${source}/export`)).text();
    const response = await fx.call("POST", "/v1/tasks/import", {
      token: fx.tokens.mallory,
      raw: file,
      headers: { "content-type": "application/jsonl" },
    });
    expect(response.status).toBe(201);
    const imported = await json<{ taskId: string; sourceTaskId: string; tasks: { from: string; to: string }[] }>(
      response,
    );
    expect(imported).toMatchObject({ sourceTaskId: source, tasks: [{ from: source, to: imported.taskId }] });
    expect(imported.taskId).not.toBe(source);
    expect(response.headers.get("location")).toBe(`/v1/tasks/${imported.taskId}`);
    // The file says acme; the import is globex's, the importer's.
    expect((await fx.store.getTask(imported.taskId)).principal).toBe("globex");
    const detail = TaskDetail.parse(
      await json(await fx.call("GET", `/v1/tasks/${imported.taskId}`, { token: fx.tokens.mallory })),
    );
    expect(detail).toMatchObject({ status: "completed", forkedFrom: { taskId: source, origin: "import" } });
    expect((await fx.call("GET", `/v1/tasks/${imported.taskId}`)).status).toBe(404);
    const replay = await fx.call("POST", `/v1/tasks/${imported.taskId}/replay`, { token: fx.tokens.mallory });
    expect(await json(replay)).toMatchObject({ outcome: "identical", recordedTurns: 2 });
    // NDJSON's name for the same bytes is taken too.
    const again = await fx.call("POST", "/v1/tasks/import", {
      token: fx.tokens.bob,
      raw: file,
      headers: { "content-type": "application/x-ndjson; charset=utf-8" },
    });
    expect(again.status).toBe(201);
  });

  it("needs the supervisor role (403 before the body is read), and refuses a tampered file naming the line, writing nothing", async () => {
    const fx = await apiFixture();
    const source = await completedTask(fx);
    const file = await (await fx.call("GET", `/v1/tasks/${source}/export`)).text();
    const count = async () =>
      (await fx.store.listTasks({ principal: "acme" })).tasks.length +
      (await fx.store.listTasks({ principal: "globex" })).tasks.length;
    const before = await count();
    const post = (raw: string, token = fx.tokens.bob) =>
      fx.call("POST", "/v1/tasks/import", { token, raw, headers: { "content-type": "application/jsonl" } });

    const forbidden = await post(file, fx.tokens.alice);
    expect(forbidden.status).toBe(403);
    expect(await json(forbidden)).toMatchObject({ error: { code: "Forbidden", details: { role: "supervisor" } } });

    const tampered = file.replace('"text":"Do the thing"', '"text":"Do another thing"');
    expect(tampered).not.toBe(file);
    const refused = await post(tampered);
    expect(refused.status).toBe(400);
    const lines = file.split("\n").length - 1;
    expect(await json(refused)).toMatchObject({
      error: {
        code: "InvalidInput",
        message: `export file, line ${lines}: the SHA-256 of the lines before the end line does not match: the file was changed or cut`,
        details: { line: lines },
      },
    });
    const cut = await post(file.split("\n").slice(0, 4).join("\n"));
    expect(await json(cut)).toMatchObject({ error: { code: "InvalidInput", details: { line: 4 } } });
    const garbage = await post("not json\n");
    expect(await json(garbage)).toMatchObject({ error: { message: "export file, line 1: not JSON" } });
    expect(await count()).toBe(before);
  });

  it("refuses a file whose settings carry provider options the served agent does not allow, naming the line", async () => {
    const elsewhere = new MemoryStore();
    const taskId = await startTask(elsewhere, {
      objective: "x",
      principal: "acme",
      agent: "default",
      providerOptions: { openai: { serviceTier: "priority" } },
    });
    const file = await exportTask(elsewhere, taskId);
    const fx = await apiFixture();
    const response = await fx.call("POST", "/v1/tasks/import", {
      token: fx.tokens.bob,
      raw: file,
      headers: { "content-type": "application/jsonl" },
    });
    expect(response.status).toBe(400);
    expect(await json(response)).toMatchObject({
      error: {
        code: "InvalidInput",
        message: expect.stringMatching(/^export file, line 3: settings\.providerOptions\.openai\.serviceTier: /),
        details: { line: 3 },
      },
    });
    expect((await fx.store.listTasks({ principal: "acme" })).tasks).toEqual([]);
    // Where the agent allows the key, the same file imports.
    const agent = { ...scriptedAgent([{ text: "done" }]), callerProviderOptions: { openai: ["serviceTier"] } };
    const allowing = await apiFixture({ app: { agents: createAgentRegistry({ default: agent }) } });
    const ok = await allowing.call("POST", "/v1/tasks/import", {
      token: allowing.tokens.bob,
      raw: file,
      headers: { "content-type": "application/jsonl" },
    });
    expect(ok.status).toBe(201);
  });

  it("refuses a file whose parent links do not run from parent to child, before writing anything", async () => {
    const fx = await apiFixture();
    const source = await completedTask(fx);
    const file = await (await fx.call("GET", `/v1/tasks/${source}/export`)).text();
    const post = (raw: string) =>
      fx.call("POST", "/v1/tasks/import", {
        token: fx.tokens.bob,
        raw,
        headers: { "content-type": "application/jsonl" },
      });
    // The file is sound once resealed: the check is the link, not the seal.
    expect((await post(resealed(file, () => {}))).status).toBe(201);
    const before = (await fx.store.listTasks({ principal: "acme" })).tasks.length;
    const ownParent = resealed(file, (lines) => {
      const line = JSON.parse(lines[2] ?? "{}") as { event: Record<string, unknown> };
      line.event.parentTaskId = source;
      lines[2] = JSON.stringify(line);
    });
    const refused = await post(ownParent);
    expect(refused.status).toBe(400);
    expect(await json(refused)).toMatchObject({
      error: {
        code: "InvalidInput",
        message: `export file, line 3: task ${source} names as its parent ${source}, a task after it in the file`,
        details: { line: 3 },
      },
    });
    expect((await fx.store.listTasks({ principal: "acme" })).tasks.length).toBe(before);
  });

  it("refuses a body over maxImportBodyBytes (413) and one of another media type (415)", async () => {
    const fx = await apiFixture({ app: { limits: { maxImportBodyBytes: 1024 } } });
    const source = await completedTask(fx);
    const file = await (await fx.call("GET", `/v1/tasks/${source}/export`)).text();
    expect(file.length).toBeGreaterThan(1024);
    const large = await fx.call("POST", "/v1/tasks/import", {
      token: fx.tokens.bob,
      raw: file,
      headers: { "content-type": "application/jsonl" },
    });
    expect(large.status).toBe(413);
    expect(await json(large)).toMatchObject({ error: { code: "PayloadTooLarge", details: { limit: 1024 } } });
    const asJson = await fx.call("POST", "/v1/tasks/import", {
      token: fx.tokens.bob,
      raw: "{}",
      headers: { "content-type": "application/json" },
    });
    expect(asJson.status).toBe(415);
  });
});
