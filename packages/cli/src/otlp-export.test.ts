/**
 * Traces over the wire, in real processes: `sema run` (a scripted model, one tool call) with the
 * OTLP variables set exports to a local receiver that decodes OTLP, in protobuf and in JSON; the
 * spans arrive with their names, attributes and parent links; `sema trace` exports the same
 * spans again from the log. With a collector that refuses connections or never answers, the run
 * still completes and the process exits (polled with a deadline, no time asserted). A task that
 * delegates, run by `sema serve` or `sema worker`, is one trace live: the child's
 * spans arrive (the host's `childEmit`), under the parent's `delegate` span, and the child's tool
 * call gets its span's `traceparent` (the host's `traceparentOf`).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "../../otel/src/test-support/otlp-receiver.ts";

const ENTRY = fileURLToPath(new URL("./test-support/sema-node.ts", import.meta.url));
const dirs: string[] = [];
const receivers: OtlpReceiver[] = [];
afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `sema <args>` in `dir` with `env` over an environment without OTEL_*; polls for its exit. */
async function sema(dir: string, args: string[], env: Record<string, string>): Promise<Exit> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("OTEL_")));
  const child = spawn(process.execPath, [ENTRY, ...args], {
    cwd: dir,
    env: { ...base, SEMA_STORE_URL: "", SEMA_DB: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  let exit: Exit | undefined;
  // "close": the process has exited and its output streams have ended.
  child.on("close", (code) => {
    exit = { code, stdout, stderr };
  });
  try {
    await expect.poll(() => exit !== undefined, { timeout: 60_000, interval: 50 }).toBe(true);
  } finally {
    if (exit === undefined) child.kill("SIGKILL");
  }
  return exit ?? { code: null, stdout, stderr };
}

/** A long-running `sema <args>`: its output so far, and a stop by SIGTERM that polls for the exit. */
function host(dir: string, args: string[], env: Record<string, string>) {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("OTEL_")));
  const child: ChildProcess = spawn(process.execPath, [ENTRY, ...args], {
    cwd: dir,
    env: { ...base, SEMA_STORE_URL: "", SEMA_DB: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  let code: number | null | undefined;
  child.on("close", (exitCode) => {
    code = exitCode;
  });
  return {
    output: () => output,
    async stop(): Promise<number | null | undefined> {
      child.kill("SIGTERM");
      try {
        await expect.poll(() => code !== undefined, { timeout: 30_000, interval: 50 }).toBe(true);
      } finally {
        if (code === undefined) child.kill("SIGKILL");
      }
      return code;
    },
  };
}

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), "sema-otlp-"));
  dirs.push(dir);
  writeFileSync(join(dir, "notes.txt"), "hello\n");
  writeFileSync(
    join(dir, "turns.json"),
    JSON.stringify({
      turns: [{ toolCalls: [{ name: "list_dir", input: { path: "." } }] }, { text: "There is notes.txt." }],
    }),
  );
  return dir;
}

const CORE = (path: string) => pathToFileURL(fileURLToPath(new URL(`../../core/src/${path}`, import.meta.url))).href;

/**
 * A workspace whose config's default agent delegates to `helper`, whose one tool call writes the
 * `traceparent` it was given to traceparent.txt (what an A2A or MCP tool would send).
 */
function delegatingWorkspace(): string {
  const dir = mkdtempSync(join(tmpdir(), "sema-otlp-team-"));
  dirs.push(dir);
  writeFileSync(
    join(dir, "sema.config.mjs"),
    `import { writeFileSync } from "node:fs";
import { defineTool } from ${JSON.stringify(CORE("index.ts"))};
import { ScriptedModel } from ${JSON.stringify(CORE("testing/index.ts"))};
const probe = defineTool({
  name: "probe",
  description: "writes the call's traceparent",
  inputSchema: { type: "object", properties: {} },
  execute: (_input, ctx) => {
    writeFileSync("traceparent.txt", ctx.traceparent ?? "none");
    return "probed";
  },
});
const helper = {
  model: new ScriptedModel([{ toolCalls: [{ name: "probe", input: {} }] }, { text: "helped" }], { mode: "by-transcript", id: "helper-model" }),
  tools: [probe],
};
const lead = {
  model: new ScriptedModel(
    [{ toolCalls: [{ name: "delegate", input: { objective: "Help", agent: "helper" } }] }, { text: "led" }],
    { mode: "by-transcript", id: "lead-model" },
  ),
  delegation: { agents: { helper } },
};
export default { agents: { lead }, defaultAgent: "lead" };
`,
  );
  return dir;
}

async function receiver(options: { silent?: boolean } = {}): Promise<OtlpReceiver> {
  const started = await startOtlpReceiver(options);
  receivers.push(started);
  return started;
}

const RUN = ["run", "What is here?", "--model", "script:turns.json", "--db", "sema.db"];

function taskIdOf(exit: Exit): string {
  const id = /Task (\S+) started/.exec(exit.stdout)?.[1];
  if (id === undefined) throw new Error(`no task id in: ${exit.stdout}${exit.stderr}`);
  return id;
}

const one = (spans: ReceivedSpan[], name: string): ReceivedSpan => {
  const found = spans.filter((span) => span.name === name);
  expect(
    found.map((span) => span.name),
    name,
  ).toEqual([name]);
  return found[0] as ReceivedSpan;
};

describe("OTLP export from the CLI", () => {
  for (const protocol of ["http/protobuf", "http/json"] as const) {
    it(`sema run exports its task's trace over ${protocol}, and sema trace exports the same spans`, {
      timeout: 120_000,
    }, async () => {
      const dir = workspace();
      const live = await receiver();
      // The JSON run also opts in to the latest conventions only: no deprecated gen_ai.system.
      const latestOnly = protocol === "http/json";
      const ran = await sema(dir, RUN, {
        OTEL_EXPORTER_OTLP_ENDPOINT: live.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_SERVICE_NAME: "sema-wire-test",
        ...(latestOnly ? { OTEL_SEMCONV_STABILITY_OPT_IN: "gen_ai_latest_experimental" } : {}),
      });
      expect(ran.code, ran.stderr).toBe(0);
      const taskId = taskIdOf(ran);
      const contentType = protocol === "http/json" ? "application/json" : "application/x-protobuf";
      expect(live.requests.map((request) => [request.path, request.contentType])).toContainEqual([
        "/v1/traces",
        contentType,
      ]);

      const spans = live.spans();
      const root = one(spans, "invoke_agent default");
      const leg = one(spans, "sema.leg");
      const tool = one(spans, "execute_tool list_dir");
      const chats = spans.filter((span) => span.name === "chat turns.json");
      expect(chats).toHaveLength(2);
      expect(root.parentSpanId).toBe("");
      expect(leg.parentSpanId).toBe(root.spanId);
      for (const child of [tool, ...chats]) expect(child.parentSpanId).toBe(leg.spanId);
      expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
      expect(root.attributes).toMatchObject({
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "default",
        "gen_ai.conversation.id": taskId,
        "gen_ai.request.model": "turns.json",
        "gen_ai.provider.name": "script",
        "sema.task.status": "completed",
      });
      expect(tool.attributes).toMatchObject({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "list_dir",
        "sema.tool.status": "ok",
        "sema.tool.attempt": 1,
      });
      for (const chat of chats) expect(chat.attributes["gen_ai.operation.name"]).toBe("chat");
      // The model's finish reasons as Sema records them: a turn that called a tool, then the answer.
      expect(chats.map((chat) => chat.attributes["gen_ai.response.finish_reasons"]).sort()).toEqual([
        ["stop"],
        ["tool-calls"],
      ]);
      expect(root.attributes["gen_ai.system"]).toBe(latestOnly ? undefined : "script");
      for (const span of spans) expect(span.resource["service.name"]).toBe("sema-wire-test");

      // Rebuilt from the log by another process, to another receiver: the same spans.
      const again = await receiver();
      const traced = await sema(
        dir,
        ["trace", taskId, "--db", "sema.db", "--endpoint", again.url, "--protocol", protocol],
        {},
      );
      expect(traced.code, traced.stderr).toBe(0);
      expect(traced.stdout).toBe(
        `Trace ${root.traceId}: ${spans.length} spans exported to ${again.url}/v1/traces (${protocol})\n`,
      );
      const ids = (list: ReceivedSpan[]) =>
        list.map((span) => `${span.spanId} ${span.parentSpanId} ${span.name}`).sort();
      expect(ids(again.spans())).toEqual(ids(spans));
    });
  }

  it("sema serve exports the legs of its workers, and sema worker those it runs for an API-only node", {
    timeout: 120_000,
  }, async () => {
    for (const split of [false, true]) {
      const dir = workspace();
      const otlp = await receiver();
      const env = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_SERVICE_NAME: split ? "split" : "serve" };
      const model = ["--model", "script:turns.json", "--db", "sema.db"];
      const serve = host(dir, ["serve", "--port", "0", ...(split ? ["--workers", "0"] : []), ...model], env);
      const hosts = [serve];
      try {
        await expect.poll(() => serve.output(), { timeout: 30_000, interval: 50 }).toMatch(/Bearer <token>/);
        expect(serve.output()).toContain(`Exporting traces to ${otlp.url}/v1/traces (http/protobuf)`);
        if (split) {
          const worker = host(dir, ["worker", "--poll", "50", ...model], env);
          hosts.push(worker);
          await expect.poll(() => worker.output(), { timeout: 30_000, interval: 50 }).toMatch(/Sema worker running/);
        }
        const url = /serving (http:\/\/\S+)/.exec(serve.output())?.[1] ?? "";
        const token = /\n\n {2}(\S+)\n\n/.exec(serve.output())?.[1] ?? "";
        const created = await fetch(`${url}/v1/tasks`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ objective: "What is here?" }),
        });
        const { taskId } = (await created.json()) as { taskId: string };
        // The task span ends last: once it is in, the whole trace is.
        await expect
          .poll(() => otlp.spans().some((span) => span.attributes["gen_ai.conversation.id"] === taskId), {
            timeout: 30_000,
            interval: 50,
          })
          .toBe(true);
        const spans = otlp.spans();
        const root = one(spans, "invoke_agent default");
        expect(one(spans, "sema.leg").parentSpanId).toBe(root.spanId);
        expect(one(spans, "execute_tool list_dir").parentSpanId).toBe(one(spans, "sema.leg").spanId);
        expect(root.resource["service.name"]).toBe(split ? "split" : "serve");
      } finally {
        for (const running of hosts.reverse()) expect(await running.stop()).toBe(0);
      }
    }
  });

  it("a delegating task is one trace live under sema serve and sema worker: the child under the delegate call", {
    timeout: 180_000,
  }, async () => {
    for (const mode of ["serve", "worker"] as const) {
      const dir = delegatingWorkspace();
      const otlp = await receiver();
      const env = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" };
      const serve = host(
        dir,
        ["serve", "--port", "0", "--db", "sema.db", ...(mode === "worker" ? ["--workers", "0"] : [])],
        env,
      );
      const hosts = [serve];
      let taskId: string;
      try {
        await expect.poll(() => serve.output(), { timeout: 30_000, interval: 50 }).toMatch(/Bearer <token>/);
        if (mode === "worker") {
          const worker = host(dir, ["worker", "--poll", "50", "--db", "sema.db"], env);
          hosts.push(worker);
          await expect.poll(() => worker.output(), { timeout: 30_000, interval: 50 }).toMatch(/Sema worker running/);
        }
        const url = /serving (http:\/\/\S+)/.exec(serve.output())?.[1] ?? "";
        const token = /\n\n {2}(\S+)\n\n/.exec(serve.output())?.[1] ?? "";
        const created = await fetch(`${url}/v1/tasks`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ objective: "Lead" }),
        });
        taskId = ((await created.json()) as { taskId: string }).taskId;
        // The parent's task span ends last: once it is in, the whole trace is.
        await expect
          .poll(
            () =>
              otlp
                .spans()
                .some((span) => span.attributes["gen_ai.conversation.id"] === taskId && span.parentSpanId === ""),
            { timeout: 30_000, interval: 50 },
          )
          .toBe(true);
      } finally {
        for (const running of hosts.reverse()) expect(await running.stop()).toBe(0);
      }
      const spans = otlp.spans();
      const rootOf = (id: string) =>
        spans.filter(
          (span) => span.attributes["gen_ai.conversation.id"] === id && span.name.startsWith("invoke_agent"),
        );
      const [root] = rootOf(taskId);
      expect(root?.parentSpanId, mode).toBe("");
      const delegate = one(spans, "execute_tool delegate");
      const childId = spans
        .map((span) => span.attributes["gen_ai.conversation.id"])
        .find((id) => id !== undefined && id !== taskId);
      expect(childId, `${mode}: the child's spans were exported live`).toBeDefined();
      const [child] = rootOf(String(childId));
      expect(child?.parentSpanId, mode).toBe(delegate.spanId);
      expect(new Set(spans.map((span) => span.traceId)), mode).toEqual(new Set([root?.traceId]));
      // The child's tool call saw the traceparent of its own execute_tool span.
      const probe = one(spans, "execute_tool probe");
      expect(readFileSync(join(dir, "traceparent.txt"), "utf8"), mode).toBe(`00-${probe.traceId}-${probe.spanId}-01`);
    }
  });

  it("with a collector that refuses connections or never answers, the run completes and the process exits", {
    timeout: 180_000,
  }, async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const silent = await receiver({ silent: true });
    for (const endpoint of [`http://127.0.0.1:${port}`, silent.url]) {
      const dir = workspace();
      const ran = await sema(dir, RUN, { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stdout).toContain("There is notes.txt.");
      expect(ran.stderr).toMatch(/sema run: traces not (all )?exported to/);
    }
    expect(silent.requests.length).toBeGreaterThan(0);

    // sema trace to a collector that refuses: a clear failure, exit 1.
    const dir = workspace();
    const taskId = taskIdOf(await sema(dir, RUN, {}));
    const traced = await sema(dir, ["trace", taskId, "--db", "sema.db"], {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_TIMEOUT: "500",
    });
    expect(traced.code).toBe(1);
    expect(traced.stderr).toContain(`sema trace: the trace was not exported to http://127.0.0.1:${port}/v1/traces`);
  });

  it("a wrong variable stops the run before it starts, naming it, and sema trace needs an endpoint (exit 2)", {
    timeout: 60_000,
  }, async () => {
    const dir = workspace();
    const ran = await sema(dir, RUN, {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc",
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL is "grpc"');
    expect(ran.stdout).not.toContain("started");
    // sema trace with nowhere to send the trace says how to give one.
    const traced = await sema(dir, ["trace", "some-task", "--db", "sema.db"], {});
    expect(traced.code).toBe(2);
    expect(traced.stderr).toContain("no OTLP endpoint to export to: pass --endpoint");
  });
});
