// Findings 3 and 4 of issue 13 over `sema serve` and a real socket: each principal's tools work in
// a workspace of its own, which holds neither the store nor the config.
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "@sema-agent/sqlite";
import { describe, expect, it } from "vitest";
import { main } from "./main.ts";
import { captureIo, until } from "./test-support/capture-io.ts";
import { workspaceName } from "./tools/index.ts";

const capture = (cwd: string, interrupt?: AbortSignal) =>
  captureIo(cwd, interrupt === undefined ? {} : { extra: { interrupt } });

/** Every task runs this script: look around, read report.txt, then write it and the host's files. */
const TURNS = [
  {
    toolCalls: [
      { name: "list_dir", input: { path: "." } },
      { name: "read_file", input: { path: "report.txt" } },
      { name: "write_file", input: { path: "report.txt", content: "confidential\n" } },
      { name: "write_file", input: { path: "sema.config.mjs", content: "process.exit(66);\n" } },
      { name: "write_file", input: { path: ".sema/sema.db", content: "not a database\n" } },
      { name: "read_file", input: { path: "../../sema.db" } },
    ],
  },
  { text: "Done." },
];

async function tokenFor(dir: string, principal: string): Promise<string> {
  const c = capture(dir);
  expect(await main(["token", "create", "--principal", principal], c.io)).toBe(0);
  return c.out().trim();
}

describe("sema serve workspaces", () => {
  it("keeps each principal's files apart and the host's store and config out of reach", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sema-serve-ws-"));
    writeFileSync(join(dir, "turns.json"), JSON.stringify({ turns: TURNS }));
    // A JSON config with no approvals: the writes run as soon as the model asks.
    writeFileSync(
      join(dir, "sema.config.json"),
      JSON.stringify({ agents: { default: { model: `script:${join(dir, "turns.json")}`, approve: [] } } }),
    );
    const acme = await tokenFor(dir, "acme");
    const evil = await tokenFor(dir, "evil");
    const stop = new AbortController();
    const c = capture(dir, stop.signal);
    const serving = main(["serve", "--port", "0"], c.io);
    await until(() => /serving/.test(c.out()), 15_000);
    const url = /serving (http:\/\/\S+)/.exec(c.out())?.[1] ?? "";

    const runAs = async (token: string): Promise<string> => {
      const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      const created = await fetch(`${url}/v1/tasks`, {
        method: "POST",
        headers,
        body: JSON.stringify({ objective: "Write the report" }),
      });
      expect(created.status).toBe(201);
      const { taskId } = (await created.json()) as { taskId: string };
      await until(async () => {
        const task = (await (await fetch(`${url}/v1/tasks/${taskId}`, { headers })).json()) as { status?: string };
        return task.status === "completed";
      }, 15_000);
      return taskId;
    };
    const acmeTask = await runAs(acme);
    const evilTask = await runAs(evil);
    stop.abort();
    expect(await serving).toBe(0);
    expect(c.err()).toBe("");

    const store = new SqliteStore({ path: join(dir, ".sema", "sema.db") });
    const results = async (taskId: string) =>
      (await store.read(taskId)).flatMap((event) =>
        event.type === "tool_result" ? [{ status: event.status, content: event.content }] : [],
      );
    const [acmeResults, evilResults] = [await results(acmeTask), await results(evilTask)];
    await store.close();
    for (const taskResults of [acmeResults, evilResults]) {
      const [list, read, report, config, db, outside] = taskResults;
      // A fresh workspace: no .sema/ of the host, nor the other principal's report.
      expect(list?.content).toContain("[. is empty]");
      expect(list?.content).not.toContain(".sema");
      expect(read).toMatchObject({ status: "error" });
      expect(read?.content).toContain("report.txt does not exist");
      expect(report).toMatchObject({ status: "ok" });
      // These land in the workspace, harmlessly; the escape is refused.
      expect(config).toMatchObject({ status: "ok" });
      expect(db).toMatchObject({ status: "ok" });
      expect(outside).toMatchObject({ status: "error" });
      expect(outside?.content).toContain("outside the working directory");
    }
    // The host's files are untouched: no config planted, the store still a SQLite database.
    expect(existsSync(join(dir, "sema.config.mjs"))).toBe(false);
    expect(existsSync(join(dir, "report.txt"))).toBe(false);
    expect(
      readFileSync(join(dir, ".sema", "sema.db"))
        .subarray(0, 15)
        .toString(),
    ).toBe("SQLite format 3");
    const workspaces = join(dir, ".sema", "workspaces");
    for (const made of [workspaces, join(workspaces, workspaceName("acme"))])
      expect(statSync(made).mode & 0o777).toBe(0o700);
    expect(readdirSync(workspaces).sort()).toEqual([workspaceName("acme"), workspaceName("evil")].sort());
    expect(readFileSync(join(workspaces, workspaceName("acme"), "report.txt"), "utf8")).toBe("confidential\n");
    expect(c.out()).toContain(`tools in workspaces in ${workspaces}, one per principal`);
  });

  it("refuses to start with a workspace base that holds the store or the config, or a bad --workspace-per", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sema-serve-ws-bad-"));
    writeFileSync(join(dir, "turns.json"), JSON.stringify({ turns: [{ text: "never" }] }));
    const model = `script:${join(dir, "turns.json")}`;
    for (const [flags, message] of [
      [["--workspaces", "."], /contains .*sema\.db/],
      [["--workspaces", ".sema"], /contains .*sema\.db/],
      [["--workspaces", "/", "--db", join(dir, "elsewhere.db")], /contains/],
      [["--workspace-per", "tenant"], /--workspace-per must be principal or task/],
    ] as const) {
      const c = capture(dir);
      expect(await main(["serve", "--port", "0", "--model", model, ...flags], c.io)).toBe(2);
      expect(c.err()).toMatch(message);
    }
    const w = capture(dir);
    expect(await main(["worker", "--model", model, "--workspaces", "."], w.io)).toBe(2);
    expect(w.err()).toMatch(/contains/);
  });
});
