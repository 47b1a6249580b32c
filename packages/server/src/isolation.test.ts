/**
 * Two principals × every endpoint: a caller of one principal reaches nothing of the other's —
 * every task route answers exactly as for a task that does not exist (404, or 403 where the
 * caller's own token is refused before any task is looked at), and nothing is recorded. The A2A
 * bindings likewise: `TaskNotFound`, byte for byte the answer for an unknown id.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { MemoryStore } from "@sema-agent/core";
import { describe, expect, it } from "vitest";
import { MemoryPushConfigStore } from "./a2a/push-config-store.ts";
import { PushDispatcher } from "./a2a/push-dispatcher.ts";
import { listen } from "./node/listen.ts";
import { allProtocols } from "./test-support/all-protocols.ts";
import { APPROVAL_SCRIPT, type ApiFixture, apiFixture, createTask, json, runOnce } from "./test-support/api-fixture.ts";
import { until } from "./test-support/until.ts";

const UNKNOWN = "0190aaaa-0000-7000-8000-000000000000";
/** Whose tasks each token reaches. */
const PRINCIPAL = { alice: "acme", mallory: "globex" } as const;

interface Probe {
  name: string;
  method: string;
  /** `own` is a task of the intruder's own, for routes that take two ids. */
  path: (taskId: string, own: string) => string;
  body?: (digest: string, taskId: string) => unknown;
  /** The status both answers share; default a 404 (or a 403 where the token is refused first). */
  status?: number;
}

const PROBES: Probe[] = [
  { name: "get", method: "GET", path: (id) => `/v1/tasks/${id}` },
  { name: "events json", method: "GET", path: (id) => `/v1/tasks/${id}/events?format=json` },
  { name: "events sse", method: "GET", path: (id) => `/v1/tasks/${id}/events` },
  { name: "steer", method: "POST", path: (id) => `/v1/tasks/${id}/inputs`, body: () => ({ text: "hi" }) },
  {
    name: "wake",
    method: "POST",
    path: (id) => `/v1/tasks/${id}/inputs`,
    body: () => ({ text: "hi", carrier: "wake", lane: "supervisor" }),
  },
  {
    name: "approve",
    method: "POST",
    path: (id) => `/v1/tasks/${id}/approvals/call-1`,
    body: (digest) => ({ decision: "approve", digest }),
  },
  { name: "interrupt", method: "POST", path: (id) => `/v1/tasks/${id}/interrupt` },
  { name: "cancel", method: "POST", path: (id) => `/v1/tasks/${id}/cancel`, body: () => ({}) },
  { name: "resume", method: "POST", path: (id) => `/v1/tasks/${id}/resume` },
  { name: "fork", method: "POST", path: (id) => `/v1/tasks/${id}/fork`, body: () => ({}) },
  {
    name: "fork with edits",
    method: "POST",
    path: (id) => `/v1/tasks/${id}/fork`,
    body: () => ({ atSeq: 2, edits: { input: { seq: 2, text: "mine now" }, settings: { temperature: 0 } } }),
  },
  // A filter on the caller's own tasks: none of theirs is a fork of anyone else's.
  { name: "forks", method: "GET", path: (id) => `/v1/tasks/${id}/forks`, status: 200 },
  // The same: none of the caller's tasks is a child of anyone else's.
  { name: "children", method: "GET", path: (id) => `/v1/tasks?parentTaskId=${id}`, status: 200 },
  { name: "replay", method: "POST", path: (id) => `/v1/tasks/${id}/replay` },
  { name: "diff (theirs first)", method: "GET", path: (id, own) => `/v1/tasks/${id}/diff/${own}` },
  { name: "diff (theirs second)", method: "GET", path: (id, own) => `/v1/tasks/${own}/diff/${id}` },
  { name: "diff (theirs both)", method: "GET", path: (id) => `/v1/tasks/${id}/diff/${id}` },
  { name: "export", method: "GET", path: (id) => `/v1/tasks/${id}/export` },
  { name: "export with children", method: "GET", path: (id) => `/v1/tasks/${id}/export?withChildren=true` },
  {
    name: "ag-ui resume",
    method: "POST",
    path: () => "/v1/agents/default/ag-ui",
    body: (digest, id) => ({
      threadId: id,
      runId: "run-1",
      messages: [],
      resume: [{ interruptId: "call-1", status: "resolved", payload: { approved: true, digest } }],
    }),
  },
];

describe("isolation between principals", () => {
  for (const [owner, intruder] of [
    ["alice", "mallory"],
    ["mallory", "alice"],
  ] as const) {
    it(`${intruder} reaches nothing of ${owner}'s task, on every endpoint`, async () => {
      const fx = await apiFixture({ turns: APPROVAL_SCRIPT, app: { workers: { notify: () => {}, resume: () => {} } } });
      const taskId = await createTask(fx, "secret objective", fx.tokens[owner]);
      await runOnce(fx, taskId);
      const ownerView = await json<{ pendingApprovals: { digest: string }[] }>(
        await fx.call("GET", `/v1/tasks/${taskId}`, { token: fx.tokens[owner] }),
      );
      const digest = ownerView.pendingApprovals[0]?.digest ?? "";
      const own = await createTask(fx, "the intruder's own", fx.tokens[intruder]);
      await runOnce(fx, own);
      const before = await fx.store.read(taskId);
      const ownerTasks = (await fx.store.listTasks({ principal: PRINCIPAL[owner] })).tasks.length;

      for (const probe of PROBES) {
        const options = { token: fx.tokens[intruder] };
        const theirs = await fx.call(probe.method, probe.path(taskId, own), {
          ...options,
          ...(probe.body === undefined ? {} : { body: probe.body(digest, taskId) }),
        });
        const unknown = await fx.call(probe.method, probe.path(UNKNOWN, own), {
          ...options,
          ...(probe.body === undefined ? {} : { body: probe.body(digest, UNKNOWN) }),
        });
        // 403 only where the caller's own token is refused first (a lane it has no role for),
        // which is the same for any task id: either way it says nothing about this task.
        expect(theirs.status, probe.name).toBe(unknown.status);
        if (probe.status === undefined) expect([403, 404], probe.name).toContain(theirs.status);
        else expect(theirs.status, probe.name).toBe(probe.status);
        const body = await theirs.text();
        expect(body, probe.name).not.toContain("secret");
        expect(body.replaceAll(taskId, "ID"), probe.name).toBe((await unknown.text()).replaceAll(UNKNOWN, "ID"));
      }
      // A message on an unknown thread starts one, so here the twin is the read of an unknown task.
      const message = { threadId: taskId, runId: "run-1", messages: [{ id: "m1", role: "user", content: "hi" }] };
      const agUi = await fx.call("POST", "/v1/agents/default/ag-ui", { token: fx.tokens[intruder], body: message });
      const unknownRead = await fx.call("GET", `/v1/tasks/${taskId}`, { token: fx.tokens[intruder] });
      expect(agUi.status).toBe(404);
      expect(await agUi.text()).toBe(await unknownRead.text());
      // Nothing was made for anyone: the intruder still has its own task alone, the owner its own.
      const list = await json<{ tasks: { taskId: string }[] }>(
        await fx.call("GET", "/v1/tasks", { token: fx.tokens[intruder] }),
      );
      expect(list.tasks.map((task) => task.taskId)).toEqual([own]);
      // The approvals inbox shows the intruder its own task's call (it may decide it) and nothing else.
      const inbox = await json<{ approvals: { taskId: string }[] }>(
        await fx.call("GET", "/v1/approvals", { token: fx.tokens[intruder] }),
      );
      expect(inbox.approvals.every((approval) => approval.taskId === own)).toBe(true);
      expect(await fx.store.read(taskId)).toEqual(before);
      expect((await fx.store.listTasks({ principal: PRINCIPAL[owner] })).tasks).toHaveLength(ownerTasks);

      // The owner still reaches all of it.
      const mine = await fx.call("GET", `/v1/tasks/${taskId}`, { token: fx.tokens[owner] });
      expect(mine.status).toBe(200);
    });
  }

  it("the chat endpoints answer for another principal's chat id exactly as for an unknown one", async () => {
    const fx = await apiFixture({ turns: APPROVAL_SCRIPT, app: { workers: { notify: () => {}, resume: () => {} } } });
    const taskId = await createTask(fx, "secret objective", fx.tokens.alice);
    await runOnce(fx, taskId);
    const digest =
      (await json<{ pendingApprovals: { digest: string }[] }>(await fx.call("GET", `/v1/tasks/${taskId}`)))
        .pendingApprovals[0]?.digest ?? "";
    const before = await fx.store.read(taskId);
    const asked = { id: "m-new", role: "user", parts: [{ type: "text", text: "hi" }] };
    const answered = {
      id: "turn-2",
      role: "assistant",
      parts: [
        {
          type: "tool-write_note",
          toolCallId: "call-1",
          state: "approval-responded",
          input: { text: "hello" },
          approval: { id: "call-1", approved: true, signature: digest },
        },
      ],
    };
    const unknownChat = await fx.call("GET", `/v1/chat/${UNKNOWN}/messages`, { token: fx.tokens.mallory });
    const notFound = (await unknownChat.text()).replaceAll(UNKNOWN, "ID");
    expect(unknownChat.status).toBe(404);
    const chat = (path: string, message: unknown) =>
      fx.call("POST", path, {
        token: fx.tokens.mallory,
        body: { id: taskId, messages: [message], trigger: "submit-message" },
      });
    // A message or an approval response under the owner's chat id: the 404 of an unknown chat.
    for (const theirs of [
      await chat("/v1/chat", asked),
      await chat("/v1/chat", answered),
      await chat("/v1/agents/default/chat", asked),
      await fx.call("GET", `/v1/chat/${taskId}/messages`, { token: fx.tokens.mallory }),
      await fx.call("GET", `/v1/agents/default/chat/${taskId}/messages`, { token: fx.tokens.mallory }),
    ]) {
      expect(theirs.status).toBe(404);
      expect((await theirs.text()).replaceAll(taskId, "ID")).toBe(notFound);
    }
    // Resume: nothing to resume, as for any unknown chat (what `useChat({ resume: true })` expects).
    for (const path of [`/v1/chat/{id}/stream`, `/v1/agents/default/chat/{id}/stream`]) {
      const theirs = await fx.call("GET", path.replace("{id}", taskId), { token: fx.tokens.mallory });
      const unknown = await fx.call("GET", path.replace("{id}", UNKNOWN), { token: fx.tokens.mallory });
      expect([theirs.status, unknown.status]).toEqual([204, 204]);
    }
    expect(await fx.store.read(taskId)).toEqual(before);
    // The owner reaches the chat.
    expect((await fx.call("GET", `/v1/chat/${taskId}/messages`)).status).toBe(200);
  });

  it("a token of the same principal reaches the task, whoever created it", async () => {
    const fx = await apiFixture();
    const taskId = await createTask(fx, "shared", fx.tokens.alice);
    expect((await fx.call("GET", `/v1/tasks/${taskId}`, { token: fx.tokens.bob })).status).toBe(200);
  });

  for (const [owner, intruder] of [
    ["alice", "mallory"],
    ["mallory", "alice"],
  ] as const) {
    it(`over MCP, ${intruder} reaches nothing of ${owner}'s task, with any tool or resource`, async () => {
      const fx = await apiFixture({ turns: APPROVAL_SCRIPT, app: { workers: { notify: () => {}, resume: () => {} } } });
      const taskId = await createTask(fx, "secret objective", fx.tokens[owner]);
      await runOnce(fx, taskId);
      const ownerView = await json<{ pendingApprovals: { digest: string }[] }>(
        await fx.call("GET", `/v1/tasks/${taskId}`, { token: fx.tokens[owner] }),
      );
      const digest = ownerView.pendingApprovals[0]?.digest ?? "";
      const before = await fx.store.read(taskId);
      const server = await listen(fx.app, { port: 0 });
      const client = new Client({ name: "intruder", version: "1.0.0" });
      try {
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${fx.tokens[intruder]}` } },
          }),
        );
        const probes: [string, (id: string) => Record<string, unknown>][] = [
          ["get_task", (id) => ({ taskId: id })],
          ["send_to_task", (id) => ({ taskId: id, text: "hi" })],
          ["send_to_task", (id) => ({ taskId: id, text: "hi", policy: "interrupt" })],
          ["decide_approval", (id) => ({ taskId: id, callId: "call-1", digest, decision: "approve" })],
          ["cancel_task", (id) => ({ taskId: id })],
        ];
        for (const [name, args] of probes) {
          const theirs = await client.callTool({ name, arguments: args(taskId) });
          const unknown = await client.callTool({ name, arguments: args(UNKNOWN) });
          const body = JSON.stringify(theirs);
          expect(theirs.isError, name).toBe(true);
          expect(body, name).not.toContain("secret");
          expect(body.replaceAll(taskId, "ID"), name).toBe(JSON.stringify(unknown).replaceAll(UNKNOWN, "ID"));
        }
        for (const uri of [(id: string) => `sema://tasks/${id}`, (id: string) => `sema://tasks/${id}/events`]) {
          const theirs = await client.readResource({ uri: uri(taskId) }).catch((error: Error) => error.message);
          const unknown = await client.readResource({ uri: uri(UNKNOWN) }).catch((error: Error) => error.message);
          expect(String(theirs).replaceAll(taskId, "ID")).toBe(String(unknown).replaceAll(UNKNOWN, "ID"));
          expect(String(theirs)).toMatch(/TaskNotFound/);
        }
        const list = await client.callTool({ name: "list_tasks", arguments: {} });
        expect(list.structuredContent).toEqual({ tasks: [] });
        expect((await client.listResources()).resources).toEqual([]);
        expect(await fx.store.read(taskId)).toEqual(before);
      } finally {
        await client.close();
        await server.close();
      }
    });
  }
});

/** A JSON-RPC call of the A2A binding, and the REST call of the same method. */
interface A2AProbe {
  name: string;
  rpc?: (taskId: string, digest: string) => { method: string; params: unknown };
  rest?: (taskId: string, digest: string) => { method: string; path: string; body?: unknown };
}

const A2A_PROBES: A2AProbe[] = [
  {
    name: "GetTask",
    rpc: (id) => ({ method: "GetTask", params: { id } }),
    rest: (id) => ({ method: "GET", path: `/a2a/v1/tasks/${id}` }),
  },
  {
    name: "CancelTask",
    rpc: (id) => ({ method: "CancelTask", params: { id } }),
    rest: (id) => ({ method: "POST", path: `/a2a/v1/tasks/${id}:cancel` }),
  },
  {
    name: "SubscribeToTask",
    rpc: (id) => ({ method: "SubscribeToTask", params: { id } }),
    rest: (id) => ({ method: "POST", path: `/a2a/v1/tasks/${id}:subscribe` }),
  },
  {
    name: "SendMessage (steer)",
    rpc: (id) => ({
      method: "SendMessage",
      params: { message: { messageId: "m1", role: "ROLE_USER", taskId: id, parts: [{ text: "hi" }] } },
    }),
    rest: (id) => ({
      method: "POST",
      path: "/a2a/v1/message:send",
      body: { message: { messageId: "m1", role: "ROLE_USER", taskId: id, parts: [{ text: "hi" }] } },
    }),
  },
  {
    name: "SendMessage (approval)",
    rpc: (id, digest) => ({
      method: "SendMessage",
      params: {
        message: {
          messageId: "m2",
          role: "ROLE_USER",
          taskId: id,
          parts: [{ data: { callId: "call-1", decision: "approve", digest } }],
        },
      },
    }),
  },
  {
    name: "push config create",
    rpc: (id) => ({
      method: "CreateTaskPushNotificationConfig",
      params: { taskId: id, url: "http://127.0.0.1:9/hook", token: "t" },
    }),
    rest: (id) => ({
      method: "POST",
      path: `/a2a/v1/tasks/${id}/pushNotificationConfigs`,
      body: { url: "http://127.0.0.1:9/hook", token: "t" },
    }),
  },
  {
    name: "push config list",
    rpc: (id) => ({ method: "ListTaskPushNotificationConfigs", params: { taskId: id } }),
    rest: (id) => ({ method: "GET", path: `/a2a/v1/tasks/${id}/pushNotificationConfigs` }),
  },
  {
    name: "push config get",
    rpc: (id) => ({ method: "GetTaskPushNotificationConfig", params: { taskId: id, id: "c1" } }),
    rest: (id) => ({ method: "GET", path: `/a2a/v1/tasks/${id}/pushNotificationConfigs/c1` }),
  },
  {
    name: "push config delete",
    rpc: (id) => ({ method: "DeleteTaskPushNotificationConfig", params: { taskId: id, id: "c1" } }),
    rest: (id) => ({ method: "DELETE", path: `/a2a/v1/tasks/${id}/pushNotificationConfigs/c1` }),
  },
];

describe("isolation between principals, over A2A (JSON-RPC and REST)", () => {
  it("mallory reaches nothing of alice's task: TaskNotFound, exactly as for an unknown id", async () => {
    const store = new MemoryStore();
    const push = new PushDispatcher({
      store,
      configs: new MemoryPushConfigStore(),
      urls: { allowPrivateNetworks: true },
    });
    const fx = await apiFixture({
      store,
      turns: APPROVAL_SCRIPT,
      app: { workers: { notify: () => {}, resume: () => {} }, protocols: allProtocols({ a2a: { push } }) },
    });
    const taskId = await createTask(fx, "secret objective", fx.tokens.alice);
    await runOnce(fx, taskId);
    const ownerView = await json<{ pendingApprovals: { digest: string }[] }>(
      await fx.call("GET", `/v1/tasks/${taskId}`),
    );
    const digest = ownerView.pendingApprovals[0]?.digest ?? "";
    // alice has a config on her task, so a leak would have something to show.
    const mine = await fx.call("POST", "/a2a", {
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "CreateTaskPushNotificationConfig",
        params: { taskId, id: "c1", url: "http://127.0.0.1:9/hook", token: "alice-secret" },
      },
    });
    expect(await json(mine)).toMatchObject({ result: { id: "c1" } });
    const before = await fx.store.read(taskId);

    for (const probe of A2A_PROBES) {
      const answer = async (id: string) => {
        const rpc = probe.rpc?.(id, digest);
        const rest = probe.rest?.(id, digest);
        const rpcResponse =
          rpc === undefined
            ? undefined
            : await fx.call("POST", "/a2a", { token: fx.tokens.mallory, body: { jsonrpc: "2.0", id: 7, ...rpc } });
        const restResponse =
          rest === undefined
            ? undefined
            : await fx.call(rest.method, rest.path, {
                token: fx.tokens.mallory,
                ...(rest.body === undefined ? {} : { body: rest.body }),
              });
        return {
          rpc: rpcResponse === undefined ? "" : `${rpcResponse.status} ${await rpcResponse.text()}`,
          rest: restResponse === undefined ? "" : `${restResponse.status} ${await restResponse.text()}`,
        };
      };
      const theirs = await answer(taskId);
      const unknown = await answer(UNKNOWN);
      expect(theirs.rpc.replaceAll(taskId, "ID"), probe.name).toBe(unknown.rpc.replaceAll(UNKNOWN, "ID"));
      expect(theirs.rest.replaceAll(taskId, "ID"), probe.name).toBe(unknown.rest.replaceAll(UNKNOWN, "ID"));
      if (probe.rpc !== undefined) expect(theirs.rpc, probe.name).toContain('"code":-32001');
      if (probe.rest !== undefined) expect(theirs.rest, probe.name).toMatch(/^404 .*TASK_NOT_FOUND/);
      expect(`${theirs.rpc}${theirs.rest}`, probe.name).not.toMatch(/secret/);
    }
    const listed = await json<{ result: { tasks: unknown[] } }>(
      await fx.call("POST", "/a2a", {
        token: fx.tokens.mallory,
        body: { jsonrpc: "2.0", id: 8, method: "ListTasks", params: {} },
      }),
    );
    expect(listed.result.tasks ?? []).toEqual([]);
    const restList = await json<{ tasks?: unknown[] }>(
      await fx.call("GET", "/a2a/v1/tasks", { token: fx.tokens.mallory }),
    );
    expect(restList.tasks ?? []).toEqual([]);
    expect(await fx.store.read(taskId)).toEqual(before);
    await push.close();
  });
});

/** Save `text` as dataset `name` and run an experiment over it as `token`, to its end; its id. */
async function experimentOf(fx: ApiFixture, token: string, name: string): Promise<string> {
  const saved = await fx.call("POST", `/v1/evals/datasets/${name}`, {
    token,
    raw: '{"id":"one","input":"secret question","expected":"done"}\n',
    headers: { "content-type": "application/jsonl" },
  });
  expect(saved.status).toBe(201);
  const started = await fx.call("POST", "/v1/evals/experiments", {
    token,
    body: { dataset: name, scorers: ["exact-match"] },
  });
  expect(started.status).toBe(202);
  const { experimentId } = await json<{ experimentId: string }>(started);
  await until(async () => {
    const result = await json<{ running: boolean }>(
      await fx.call("GET", `/v1/evals/experiments/${experimentId}`, { token }),
    );
    return !result.running;
  }, "the experiment to end");
  return experimentId;
}

describe("isolation between principals, over /v1/evals", () => {
  for (const [owner, intruder] of [
    ["alice", "mallory"],
    ["mallory", "alice"],
  ] as const) {
    it(`${intruder} reaches nothing of ${owner}'s datasets and experiments: exactly what an unknown one gets`, async () => {
      const fx = await apiFixture({ app: { protocols: [] } });
      const theirs = await experimentOf(fx, fx.tokens[owner], "secret-set");
      const mine = await experimentOf(fx, fx.tokens[intruder], "my-set");
      const taskId = await createTask(fx, "secret objective", fx.tokens[owner]);
      await runOnce(fx, taskId);
      const records = async () =>
        Promise.all(
          ["dataset", "experiment"].map(
            async (kind) => (await fx.store.listRecords?.({ kind, principal: PRINCIPAL[owner] }))?.records,
          ),
        );
      const before = await records();
      const ownerTasks = (await fx.store.listTasks({ principal: PRINCIPAL[owner] })).tasks.length;

      // Each probe twice: with the owner's name or id, and with an unknown one in its place.
      const probes: {
        name: string;
        method: string;
        path: (id: string, set: string) => string;
        body?: (id: string, set: string) => unknown;
      }[] = [
        { name: "dataset", method: "GET", path: (_, set) => `/v1/evals/datasets/${set}` },
        { name: "dataset version", method: "GET", path: (_, set) => `/v1/evals/datasets/${set}?version=1` },
        {
          name: "dataset from their task",
          method: "POST",
          path: () => "/v1/evals/datasets/stolen",
          body: (id) => ({ fromTasks: [id === theirs ? taskId : UNKNOWN] }),
        },
        {
          name: "experiment over their dataset",
          method: "POST",
          path: () => "/v1/evals/experiments",
          body: (_, set) => ({ dataset: set, scorers: ["exact-match"] }),
        },
        { name: "experiment", method: "GET", path: (id) => `/v1/evals/experiments/${id}` },
        {
          name: "experiment with a gate",
          method: "GET",
          path: (id) => `/v1/evals/experiments/${id}?gate=exact-match>=1`,
        },
        {
          name: "resume",
          method: "POST",
          path: (id) => `/v1/evals/experiments/${id}/resume`,
          body: () => ({ scorers: ["exact-match"] }),
        },
        { name: "compare (theirs first)", method: "GET", path: (id) => `/v1/evals/experiments/${id}/compare/${mine}` },
        { name: "compare (theirs second)", method: "GET", path: (id) => `/v1/evals/experiments/${mine}/compare/${id}` },
        { name: "compare (theirs both)", method: "GET", path: (id) => `/v1/evals/experiments/${id}/compare/${id}` },
      ];
      for (const probe of probes) {
        const options = { token: fx.tokens[intruder] };
        const call = (id: string, set: string) =>
          fx.call(probe.method, probe.path(id, set), {
            ...options,
            ...(probe.body === undefined ? {} : { body: probe.body(id, set) }),
          });
        const got = await call(theirs, "secret-set");
        const unknown = await call(UNKNOWN, "unknown-set");
        expect(got.status, probe.name).toBe(404);
        expect(unknown.status, probe.name).toBe(404);
        const body = await got.text();
        expect(body, probe.name).not.toContain("secret question");
        const normal = (text: string, id: string, set: string) =>
          text.replaceAll(id, "ID").replaceAll(set, "SET").replaceAll(taskId, "ID");
        expect(normal(body, theirs, "secret-set"), probe.name).toBe(
          normal(await unknown.text(), UNKNOWN, "unknown-set"),
        );
      }
      // The intruder's lists hold its own alone; the owner's records and tasks are as they were.
      const datasets = await json<{ datasets: { name: string }[] }>(
        await fx.call("GET", "/v1/evals/datasets", { token: fx.tokens[intruder] }),
      );
      expect(datasets.datasets.map((d) => d.name)).toEqual(["my-set"]);
      const experiments = await json<{ experiments: { experimentId: string }[] }>(
        await fx.call("GET", "/v1/evals/experiments", { token: fx.tokens[intruder] }),
      );
      expect(experiments.experiments.map((e) => e.experimentId)).toEqual([mine]);
      const summarized = await json<{ experiments: { experimentId: string }[]; summaries: { experimentId: string }[] }>(
        await fx.call("GET", "/v1/evals/experiments?summary=true", { token: fx.tokens[intruder] }),
      );
      expect(summarized.experiments.map((e) => e.experimentId)).toEqual([mine]);
      expect(summarized.summaries.map((e) => e.experimentId)).toEqual([mine]);
      expect(JSON.stringify(summarized)).not.toContain("secret");
      // A save under the owner's name is the intruder's own first version, and touches nothing of the owner's.
      const same = await fx.call("POST", "/v1/evals/datasets/secret-set", {
        token: fx.tokens[intruder],
        raw: '{"input":"mine"}\n',
        headers: { "content-type": "application/jsonl" },
      });
      expect(await json(same)).toMatchObject({ name: "secret-set", version: 1 });
      expect(await records()).toEqual(before);
      expect((await fx.store.listTasks({ principal: PRINCIPAL[owner] })).tasks).toHaveLength(ownerTasks);
      // The owner still reaches all of it.
      expect((await fx.call("GET", `/v1/evals/experiments/${theirs}`, { token: fx.tokens[owner] })).status).toBe(200);
    });
  }
});
