import { describe, expect, it } from "vitest";
import {
  APPROVAL_SCRIPT,
  type ApiFixture,
  apiFixture,
  createTask,
  json,
  runOnce,
} from "../test-support/api-fixture.ts";

async function parkedForApproval(
  app: Parameters<typeof apiFixture>[0] = {},
): Promise<{ fx: ApiFixture; taskId: string; digest: string }> {
  const fx = await apiFixture({ turns: APPROVAL_SCRIPT, ...app });
  const taskId = await createTask(fx);
  await runOnce(fx, taskId);
  const detail = await json<{ pendingApprovals: { digest: string }[] }>(await fx.call("GET", `/v1/tasks/${taskId}`));
  return { fx, taskId, digest: detail.pendingApprovals[0]?.digest ?? "" };
}

const path = (taskId: string) => `/v1/tasks/${taskId}/approvals/call-1`;

describe("POST /v1/tasks/:taskId/approvals/:callId", () => {
  it("records an approval attributed to the token's verified actor, then the call runs", async () => {
    const { fx, taskId, digest } = await parkedForApproval();
    const response = await fx.call("POST", path(taskId), {
      token: fx.tokens.bob,
      body: { decision: "approve", digest, reason: "ok" },
    });
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ callId: "call-1", decision: "approve", digest });
    const decided = (await fx.store.read(taskId)).find((e) => e.type === "approval_decided");
    expect(decided).toMatchObject({ actor: { id: "bob", verified: true, issuer: "sema-token" }, reason: "ok" });
    expect((await runOnce(fx, taskId)).status).toBe("completed");
  });

  it("refuses a wrong digest and a second decision with 409s", async () => {
    const { fx, taskId, digest } = await parkedForApproval();
    const token = fx.tokens.bob;
    const wrong = await fx.call("POST", path(taskId), { token, body: { decision: "approve", digest: "0".repeat(64) } });
    expect(wrong.status).toBe(409);
    expect(await json(wrong)).toMatchObject({ error: { code: "DigestMismatch" } });
    expect((await fx.call("POST", path(taskId), { token, body: { decision: "deny", digest } })).status).toBe(200);
    const twice = await fx.call("POST", path(taskId), { token, body: { decision: "approve", digest } });
    expect(twice.status).toBe(409);
    expect(await json(twice)).toMatchObject({ error: { code: "ApprovalConflict" } });
  });

  it("needs the approver role by default: a verified token without it gets a 403 and nothing is recorded", async () => {
    const { fx, taskId, digest } = await parkedForApproval();
    const before = (await fx.store.getTask(taskId)).lastSeq;
    const response = await fx.call("POST", path(taskId), {
      token: fx.tokens.alice,
      body: { decision: "approve", digest },
    });
    expect(response.status).toBe(403);
    expect(await json(response)).toMatchObject({ error: { code: "Forbidden" } });
    expect((await fx.store.getTask(taskId)).lastSeq).toBe(before);
  });

  it("lets any verified actor of the principal decide when the task's agent allows it, and only that agent", async () => {
    const anyVerified = { app: { approvers: { agents: { default: "any-verified-actor" as const } } } };
    const { fx, taskId, digest } = await parkedForApproval(anyVerified);
    const response = await fx.call("POST", path(taskId), {
      token: fx.tokens.alice,
      body: { decision: "approve", digest },
    });
    expect(response.status).toBe(200);
    const decided = (await fx.store.read(taskId)).find((e) => e.type === "approval_decided");
    expect(decided).toMatchObject({ actor: { id: "alice", verified: true } });
    // Still never an unverified speaker without the role, nor another agent's tasks.
    const other = await parkedForApproval({ app: { approvers: { agents: { someone: "any-verified-actor" } } } });
    const refused = await other.fx.call("POST", path(other.taskId), {
      token: other.fx.tokens.alice,
      body: { decision: "approve", digest: other.digest },
    });
    expect(refused.status).toBe(403);
    const everywhere = await parkedForApproval({ app: { approvers: { default: "any-verified-actor" } } });
    const relayed = await everywhere.fx.call("POST", path(everywhere.taskId), {
      token: everywhere.fx.tokens.alice,
      headers: { "x-sema-speaker": "carol" },
      body: { decision: "approve", digest: everywhere.digest },
    });
    expect(relayed.status).toBe(403);
    const direct = await everywhere.fx.call("POST", path(everywhere.taskId), {
      token: everywhere.fx.tokens.alice,
      body: { decision: "approve", digest: everywhere.digest },
    });
    expect(direct.status).toBe(200);
  });

  it("is a 409 TaskFinished for a call of a cancelled task", async () => {
    const { fx, taskId, digest } = await parkedForApproval();
    expect((await fx.call("POST", `/v1/tasks/${taskId}/cancel`, { body: {} })).status).toBe(200);
    const response = await fx.call("POST", path(taskId), {
      token: fx.tokens.bob,
      body: { decision: "approve", digest },
    });
    expect(response.status).toBe(409);
    expect(await json(response)).toMatchObject({ error: { code: "TaskFinished", details: { status: "cancelled" } } });
  });

  it("is a 404 for a call with no approval request", async () => {
    const { fx, taskId, digest } = await parkedForApproval();
    const response = await fx.call("POST", `/v1/tasks/${taskId}/approvals/call-9`, {
      body: { decision: "approve", digest },
    });
    expect(response.status).toBe(404);
    expect(await json(response)).toMatchObject({ error: { code: "ApprovalNotFound" } });
  });

  it("refuses an unverified relayed speaker unless the token has the approver role", async () => {
    const { fx, taskId, digest } = await parkedForApproval();
    const relayed = await fx.call("POST", path(taskId), {
      headers: { "x-sema-speaker": "carol" },
      body: { decision: "approve", digest },
    });
    expect(relayed.status).toBe(403);
    expect(await json(relayed)).toMatchObject({ error: { code: "Forbidden" } });
    const viaApprover = await fx.call("POST", path(taskId), {
      token: fx.tokens.frontend,
      headers: { "x-sema-speaker": "carol" },
      body: { decision: "approve", digest },
    });
    expect(viaApprover.status).toBe(200);
    const decided = (await fx.store.read(taskId)).find((e) => e.type === "approval_decided");
    expect(decided).toMatchObject({ actor: { id: "carol", verified: false, issuer: "frontend" } });
  });
});
