import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { openApiPath } from "./openapi.ts";
import { APPROVAL_SCRIPT, apiFixture, createTask, json, runOnce } from "./test-support/api-fixture.ts";
import { until } from "./test-support/until.ts";

type Doc = { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };

async function loadDoc() {
  const fx = await apiFixture({ turns: APPROVAL_SCRIPT });
  const response = await fx.call("GET", "/v1/openapi.json", { token: null });
  expect(response.status).toBe(200);
  return { fx, doc: await json<Doc>(response) };
}

describe("/v1/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document, served without credentials", async () => {
    const { doc } = await loadDoc();
    const result = await new Validator().validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it("documents exactly the routes the app serves", async () => {
    const { fx, doc } = await loadDoc();
    const served = new Set(
      fx.app.routes
        .filter((r) => r.method !== "ALL" && r.path.startsWith("/v1/") && r.path !== "/v1/openapi.json")
        .map((r) => `${r.method.toLowerCase()} ${openApiPath(r.path)}`),
    );
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method} ${path}`)),
    );
    expect([...documented].sort()).toEqual([...served].sort());
  });

  it("describes the responses the routes actually send", async () => {
    const { fx, doc } = await loadDoc();
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ ...doc, $id: "https://sema.invalid/openapi.json" });
    const check = (name: string, value: unknown) => {
      const validate = ajv.getSchema(`https://sema.invalid/openapi.json#/components/schemas/${name}`);
      if (validate === undefined) throw new Error(`no schema ${name}`);
      expect(validate(value), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    };
    const created = await json(await fx.call("POST", "/v1/tasks", { body: { objective: "x", metadata: { a: [1] } } }));
    check("CreateTaskResponse", created);
    const taskId = await createTask(fx);
    await runOnce(fx, taskId);
    check("TaskPage", await json(await fx.call("GET", "/v1/tasks")));
    const detail = await json<{ pendingApprovals: { digest: string }[] }>(await fx.call("GET", `/v1/tasks/${taskId}`));
    check("TaskDetail", detail);
    check("EventPage", await json(await fx.call("GET", `/v1/tasks/${taskId}/events?format=json&limit=2`)));
    check("TraceRequest", await json(await fx.call("GET", `/v1/tasks/${taskId}/trace`)));
    check("ErrorBody", await json(await fx.call("GET", "/v1/tasks/nope")));
    check(
      "DecideApprovalResponse",
      await json(
        await fx.call("POST", `/v1/tasks/${taskId}/approvals/call-1`, {
          token: fx.tokens.bob,
          body: { decision: "deny", digest: detail.pendingApprovals[0]?.digest },
        }),
      ),
    );
    check(
      "SendInputResponse",
      await json(await fx.call("POST", `/v1/tasks/${taskId}/inputs`, { body: { text: "hi" } })),
    );
    check("InterruptResponse", await json(await fx.call("POST", `/v1/tasks/${taskId}/interrupt`)));
    check("CancelResponse", await json(await fx.call("POST", `/v1/tasks/${taskId}/cancel`, { body: { reason: "r" } })));
  });

  it("describes the time-travel routes' responses, and the import's body as an export file", async () => {
    const { fx, doc } = await loadDoc();
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ ...doc, $id: "https://sema.invalid/openapi.json" });
    const check = (name: string, value: unknown) => {
      const validate = ajv.getSchema(`https://sema.invalid/openapi.json#/components/schemas/${name}`);
      if (validate === undefined) throw new Error(`no schema ${name}`);
      expect(validate(value), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    };
    const taskId = await createTask(fx);
    await runOnce(fx, taskId);
    const fork = await json<{ taskId: string }>(
      await fx.call("POST", `/v1/tasks/${taskId}/fork`, { body: { atSeq: 5 } }),
    );
    check("ForkResponse", fork);
    check("TaskDetail", await json(await fx.call("GET", `/v1/tasks/${fork.taskId}`)));
    check("TaskPage", await json(await fx.call("GET", `/v1/tasks/${taskId}/forks`)));
    check("ReplayReport", await json(await fx.call("POST", `/v1/tasks/${taskId}/replay`)));
    check("TaskDiff", await json(await fx.call("GET", `/v1/tasks/${taskId}/diff/${fork.taskId}`)));
    const file = await (await fx.call("GET", `/v1/tasks/${taskId}/export`)).text();
    const imported = await fx.call("POST", "/v1/tasks/import", {
      token: fx.tokens.bob,
      raw: file,
      headers: { "content-type": "application/jsonl" },
    });
    check("ImportResponse", await json(imported));
    const ops = doc.paths as Record<
      string,
      Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>
    >;
    expect(ops["/v1/tasks/import"]?.post?.requestBody).toMatchObject({
      required: true,
      content: { "application/jsonl": { schema: { type: "string" } }, "application/x-ndjson": {} },
    });
    expect(ops["/v1/tasks/{taskId}/export"]?.get?.responses["200"]).toMatchObject({
      content: { "application/jsonl": { schema: { type: "string" } } },
    });
    expect(Object.keys(ops["/v1/tasks/{taskId}/diff/{otherTaskId}"]?.get?.responses ?? {})).toContain("404");
  });

  it("describes the evaluation routes' responses, and the dataset's body as JSON Lines or JSON", async () => {
    const { fx, doc } = await loadDoc();
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ ...doc, $id: "https://sema.invalid/openapi.json" });
    const check = (name: string, value: unknown) => {
      const validate = ajv.getSchema(`https://sema.invalid/openapi.json#/components/schemas/${name}`);
      if (validate === undefined) throw new Error(`no schema ${name}`);
      expect(validate(value), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    };
    const saved = await fx.call("POST", "/v1/evals/datasets/set", {
      raw: '{"id":"a","input":"x","expected":"finished"}\n{"id":"b","input":"y","expected":"nope"}\n',
      headers: { "content-type": "application/jsonl" },
    });
    check("DatasetSaved", await json(saved));
    check("DatasetList", await json(await fx.call("GET", "/v1/evals/datasets")));
    const start = async () => {
      const accepted = await json<{ experimentId: string }>(
        await fx.call("POST", "/v1/evals/experiments", {
          body: { dataset: "set", scorers: ["exact-match", "turns=1"], gates: ["exact-match >= 0.5"] },
        }),
      );
      check("ExperimentAccepted", accepted);
      return until(async () => {
        const result = await json<{ running: boolean }>(
          await fx.call("GET", `/v1/evals/experiments/${accepted.experimentId}?gate=exact-match>=0.9`),
        );
        return result.running ? undefined : { id: accepted.experimentId, result };
      }, "the experiment to end");
    };
    const a = await start();
    check("ExperimentResult", a.result);
    const b = await start();
    check("ExperimentList", await json(await fx.call("GET", "/v1/evals/experiments")));
    check("ExperimentComparison", await json(await fx.call("GET", `/v1/evals/experiments/${a.id}/compare/${b.id}`)));
    const { cases } = a.result as unknown as { cases: { taskId: string }[] };
    check("TaskDetail", await json(await fx.call("GET", `/v1/tasks/${cases[0]?.taskId}`)));
    check("TaskPage", await json(await fx.call("GET", "/v1/tasks")));
    const ops = doc.paths as Record<
      string,
      Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>
    >;
    expect(ops["/v1/evals/datasets/{name}"]?.post?.requestBody).toMatchObject({
      required: true,
      content: {
        "application/jsonl": { schema: { type: "string" } },
        "application/x-ndjson": {},
        "application/json": { schema: { $ref: "#/components/schemas/DatasetFromTasksRequest" } },
      },
    });
    expect(ops["/v1/evals/datasets/{name}"]?.get?.responses["200"]).toMatchObject({
      content: { "application/jsonl": { schema: { type: "string" } } },
    });
    expect(Object.keys(ops["/v1/evals/experiments"]?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(["202", "400", "404", "409", "429"]),
    );
  });
});
