import { MemoryStore } from "@sema-agent/core";
import type { ScriptedTurn } from "@sema-agent/core/testing";
import { describe, expect, it } from "vitest";
import { ApprovalInbox } from "../schemas/approvals-inbox.ts";
import { type ApiFixture, apiFixture, createTask, json, runOnce } from "../test-support/api-fixture.ts";

/** Every leg's first turn calls the approval-gated tool, so each task parks on call-1. */
const CALLS: ScriptedTurn[] = Array.from({ length: 6 }, (_, i) => ({
  toolCalls: [{ name: "write_note", input: { text: `note ${i}` }, callId: "call-1" }],
}));

async function parkedTasks(fx: ApiFixture, count: number, token?: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const taskId = await createTask(fx, `task ${i}`, token);
    await runOnce(fx, taskId);
    ids.push(taskId);
  }
  return ids;
}

async function inbox(fx: ApiFixture, query = "", token = fx.tokens.bob) {
  const response = await fx.call("GET", `/v1/approvals${query}`, { token });
  expect(response.status).toBe(200);
  return ApprovalInbox.parse(await json(response));
}

describe("GET /v1/approvals", () => {
  it("lists the calls the caller may decide, newest task first, a page at a time", async () => {
    let ms = Date.parse("2026-01-01T00:00:00Z");
    const fx = await apiFixture({ turns: CALLS, store: new MemoryStore({ now: () => ms++ }) });
    const ids = await parkedTasks(fx, 3);
    await parkedTasks(fx, 1, fx.tokens.mallory);
    await createTask(fx, "not parked");

    const all = await inbox(fx);
    expect(all.approvals.map((approval) => approval.taskId)).toEqual([...ids].reverse());
    expect(all.nextCursor).toBeUndefined();
    const [newest] = all.approvals;
    expect(newest).toMatchObject({ objective: "task 2", agent: "default", callId: "call-1", name: "write_note" });
    expect(newest?.input).toEqual(JSON.parse(newest?.inputJson ?? ""));
    expect(Date.parse(newest?.requestedAt ?? "")).toBeGreaterThan(0);

    const first = await inbox(fx, "?limit=2");
    expect(first.approvals).toHaveLength(2);
    const rest = await inbox(fx, `?limit=2&cursor=${encodeURIComponent(first.nextCursor ?? "")}`);
    expect([...first.approvals, ...rest.approvals].map((approval) => approval.taskId)).toEqual([...ids].reverse());
    expect(rest.nextCursor).toBeUndefined();

    // Decided calls leave the inbox.
    const digest = newest?.digest ?? "";
    const decided = await fx.call("POST", `/v1/tasks/${ids[2]}/approvals/call-1`, {
      token: fx.tokens.bob,
      body: { decision: "deny", digest },
    });
    expect(decided.status).toBe(200);
    expect((await inbox(fx)).approvals.map((approval) => approval.taskId)).toEqual([ids[1], ids[0]]);
  });

  it("shows nothing the caller may not decide, under the server's approver rules", async () => {
    const fx = await apiFixture({ turns: CALLS });
    await parkedTasks(fx, 2);
    // alice has no approver role: by default she decides nothing, so sees nothing.
    expect((await inbox(fx, "", fx.tokens.alice)).approvals).toEqual([]);
    // mallory is another principal's: none of acme's tasks.
    expect((await inbox(fx, "", fx.tokens.mallory)).approvals).toEqual([]);
    const relaxed = await apiFixture({ turns: CALLS, app: { approvers: { default: "any-verified-actor" } } });
    await parkedTasks(relaxed, 2);
    expect((await inbox(relaxed, "", relaxed.tokens.alice)).approvals).toHaveLength(2);
  });

  it("refuses a bad cursor or limit, and no credentials", async () => {
    const fx = await apiFixture();
    for (const query of ["cursor=garbage", "cursor=1~x", "limit=0", "limit=201", "limit=x", "extra=1"]) {
      const response = await fx.call("GET", `/v1/approvals?${query}`, { token: fx.tokens.bob });
      expect(response.status, query).toBe(400);
    }
    expect((await fx.call("GET", "/v1/approvals", { token: null })).status).toBe(401);
  });
});
