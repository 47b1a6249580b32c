// The rings are enforced by Biome (biome.json's overrides: noRestrictedImports per folder,
// noRestrictedGlobals outside src/node/, noImportCycles). This proves the rules bite: probe files
// that break each rule are linted with the repository's own configuration, in a scratch copy of
// the tree so the real one is never touched, and each must be reported under its rule.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "sema-rings-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Lint `files` (path under packages/core/src → content) with biome.json; the rule names reported per file. */
function lint(files: Record<string, string>, root = "packages/core/src"): Record<string, string[]> {
  const dir = mkdtempSync(join(scratch, "case-"));
  const config = JSON.parse(readFileSync(join(repo, "biome.json"), "utf8")) as Record<string, unknown>;
  // The scratch tree is no git checkout: the ignore file is the repository's concern, not the rings'.
  writeFileSync(join(dir, "biome.json"), JSON.stringify({ ...config, vcs: { enabled: false } }));
  for (const [path, text] of Object.entries(files)) {
    const full = join(dir, root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
  let out = "";
  try {
    out = execFileSync(join(repo, "node_modules/.bin/biome"), ["lint", "--reporter=github", "."], {
      cwd: dir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    out = String((error as { stdout?: unknown }).stdout ?? "");
  }
  const found: Record<string, string[]> = {};
  const under = root.replaceAll("/", "\\/");
  for (const match of out.matchAll(
    new RegExp(`^::error title=lint\\/(\\w+\\/\\w+),file=[^,]*${under}\\/([^,]+),`, "gm"),
  )) {
    const [, rule, file] = match;
    if (rule !== undefined && file !== undefined) found[file] = [...(found[file] ?? []), rule];
  }
  return found;
}

describe("the rings, as linted", () => {
  it("refuses an import against the direction of the rings, and node:* outside src/node/", () => {
    const found = lint({
      "protocol/probe.ts": 'import { runLeg } from "../harness/leg/run-leg.ts";\nexport const x = runLeg;\n',
      "core/probe.ts": 'import type { Store } from "../ports/store.ts";\nexport type X = Store;\n',
      "ports/probe.ts": 'import { MemoryStore } from "../adapters/memory-store.ts";\nexport const x = MemoryStore;\n',
      "harness/leg/probe.ts":
        'import { MemoryStore } from "../../adapters/memory-store.ts";\nimport { nodeHost } from "../../node/node-host.ts";\nexport const x = [MemoryStore, nodeHost];\n',
      "adapters/probe.ts": 'import { runLeg } from "../harness/leg/run-leg.ts";\nexport const x = runLeg;\n',
      "internal/probe.ts": 'import { fold } from "../core/fold.ts";\nexport const x = fold;\n',
      "harness/tools/probe.ts": 'import { createHash } from "node:crypto";\nexport const x = createHash;\n',
      "index-probe/probe.ts": 'import { hostname } from "node:os";\nexport const x = hostname;\n',
      "agent/probe.ts":
        'import { hostname } from "node:os";\nimport { nodeHost } from "../node/node-host.ts";\nimport { ScriptedModel } from "../testing/scripted-model.ts";\nexport const x = [hostname, nodeHost, ScriptedModel];\n',
      "harness/tasks/probe.ts":
        'import { createAgent } from "../../agent/create-agent.ts";\nexport const x = createAgent;\n',
      "adapters/probe-agent.ts":
        'import { createAgent } from "../agent/create-agent.ts";\nexport const x = createAgent;\n',
      "trust/index.ts": 'import { nodeHost } from "../node/node-host.ts";\nexport const x = nodeHost;\n',
    });
    expect(found).toEqual({
      "protocol/probe.ts": ["style/noRestrictedImports"],
      "core/probe.ts": ["style/noRestrictedImports"],
      "ports/probe.ts": ["style/noRestrictedImports"],
      "harness/leg/probe.ts": ["style/noRestrictedImports", "style/noRestrictedImports"],
      "adapters/probe.ts": ["style/noRestrictedImports"],
      "internal/probe.ts": ["style/noRestrictedImports"],
      "harness/tools/probe.ts": ["style/noRestrictedImports"],
      "index-probe/probe.ts": ["style/noRestrictedImports"],
      "agent/probe.ts": ["style/noRestrictedImports", "style/noRestrictedImports", "style/noRestrictedImports"],
      "harness/tasks/probe.ts": ["style/noRestrictedImports"],
      "adapters/probe-agent.ts": ["style/noRestrictedImports"],
      "trust/index.ts": ["style/noRestrictedImports"],
    });
  });

  it("allows what the rings allow, Node in src/node/, and test files their fixtures", () => {
    const found = lint({
      "protocol/probe.ts":
        'import type { JsonValue } from "./json.ts";\nimport { newId } from "../internal/ids.ts";\nexport const x = newId;\nexport type J = JsonValue;\n',
      "harness/leg/probe.ts":
        'import type { Store } from "../../ports/store.ts";\nimport { fold } from "../../core/fold.ts";\nexport const x = fold;\nexport type S = Store;\n',
      "node/probe.ts": 'import { hostname } from "node:os";\nexport const x = [hostname(), process.pid];\n',
      "agent/probe.ts":
        'import { MemoryStore } from "../adapters/memory-store.ts";\nimport { runLeg } from "../harness/leg/run-leg.ts";\nimport { fold } from "../core/fold.ts";\nimport type { Store } from "../ports/store.ts";\nimport { SemaError } from "../protocol/errors.ts";\nexport const x = [MemoryStore, runLeg, fold, SemaError];\nexport type S = Store;\n',
      "harness/leg/probe.test.ts":
        'import { hostname } from "node:os";\nimport { MemoryStore } from "../../adapters/memory-store.ts";\nexport const x = [hostname, MemoryStore, process.pid];\n',
    });
    expect(found).toEqual({});
  });

  it("refuses Node's globals outside src/node/ and an import cycle", () => {
    const found = lint({
      "harness/leg/probe.ts": "export const x = [process.pid, Buffer.from('x')];\n",
      "core/a.ts": 'import { b } from "./b.ts";\nexport const a = () => b;\n',
      "core/b.ts": 'import { a } from "./a.ts";\nexport const b = () => a;\n',
    });
    expect(found).toEqual({
      "harness/leg/probe.ts": ["style/noRestrictedGlobals", "style/noRestrictedGlobals"],
      "core/a.ts": ["suspicious/noImportCycles"],
      "core/b.ts": ["suspicious/noImportCycles"],
    });
  });

  it("keeps the a2a adapter on core's public entries and the A2A client: no host, test-only code or A2A server", () => {
    const found = lint(
      {
        "probe.ts":
          'import { createApp } from "@sema-agent/server";\nimport { ScriptedModel } from "@sema-agent/core/testing";\nimport { DefaultRequestHandler } from "@a2a-js/sdk/server";\nimport express from "express";\nexport const x = [createApp, ScriptedModel, DefaultRequestHandler, express];\n',
        "allowed.ts":
          'import { defineTool } from "@sema-agent/core";\nimport { checkConfig } from "@sema-agent/core/protocol";\nimport { ClientFactory } from "@a2a-js/sdk/client";\nexport const x = [defineTool, checkConfig, ClientFactory];\n',
        "probe.test.ts":
          'import { ScriptedModel } from "@sema-agent/core/testing";\nimport express from "express";\nexport const x = [ScriptedModel, express];\n',
      },
      "packages/a2a/src",
    );
    expect(found).toEqual({ "probe.ts": Array(4).fill("style/noRestrictedImports") });
  });

  it("keeps the otel adapter on core's public entries and OpenTelemetry: no host, store, other adapter or test-only code", () => {
    const found = lint(
      {
        "probe.ts":
          'import { createApp } from "@sema-agent/server";\nimport { ScriptedModel } from "@sema-agent/core/testing";\nimport { SqliteStore } from "@sema-agent/sqlite";\nimport { delegateA2A } from "@sema-agent/a2a";\nexport const x = [createApp, ScriptedModel, SqliteStore, delegateA2A];\n',
        "allowed.ts":
          'import type { Store } from "@sema-agent/core";\nimport { checkConfig } from "@sema-agent/core/protocol";\nimport { SpanKind } from "@opentelemetry/api";\nimport { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";\nexport const x = [checkConfig, SpanKind, InMemorySpanExporter];\nexport type S = Store;\n',
        "probe.test.ts":
          'import { ScriptedModel } from "@sema-agent/core/testing";\nimport { MemoryStore } from "@sema-agent/core";\nexport const x = [ScriptedModel, MemoryStore];\n',
      },
      "packages/otel/src",
    );
    expect(found).toEqual({ "probe.ts": Array(4).fill("style/noRestrictedImports") });
  });

  it("keeps the evals suite on core's public entries: no host, store, adapter or test-only code", () => {
    const found = lint(
      {
        "probe.ts":
          'import { createApp } from "@sema-agent/server";\nimport { ScriptedModel } from "@sema-agent/core/testing";\nimport { SqliteStore } from "@sema-agent/sqlite";\nimport { fold } from "../../core/src/core/fold.ts";\nexport const x = [createApp, ScriptedModel, SqliteStore, fold];\n',
        "allowed.ts":
          'import { MemoryStore, runLeg } from "@sema-agent/core";\nimport { z } from "zod";\nexport const x = [MemoryStore, runLeg, z];\n',
        "probe.test.ts":
          'import { ScriptedModel } from "@sema-agent/core/testing";\nexport const x = [ScriptedModel];\n',
      },
      "packages/evals/src",
    );
    expect(found).toEqual({ "probe.ts": Array(4).fill("style/noRestrictedImports") });
  });
});
