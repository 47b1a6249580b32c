// Every entry but ./node and ./testing runs without Node (the root, ./protocol, ./store-kit,
// ./model-kit, ./quotas, ./trust): they are bundled for the browser
// (rolldown, platform "browser", any Node built-in an error) and the bundle is run in a fresh V8
// context that has the web's globals and none of Node's (no process, require, Buffer).
import { createHash } from "node:crypto";
import { builtinModules } from "node:module";
import { fileURLToPath } from "node:url";
import { createContext, runInContext } from "node:vm";
import { type Plugin, rolldown } from "rolldown";
import { describe, expect, it } from "vitest";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const nodeBuiltins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** Fails the build on any import of a Node built-in, named with `node:` or not. */
const noNodeBuiltins: Plugin = {
  name: "no-node-builtins",
  resolveId(source, importer) {
    if (source.startsWith("node:") || nodeBuiltins.has(source))
      this.error(`${importer ?? "an entry"} imports the Node built-in ${source}: Node-only code belongs in src/node/`);
    return null;
  },
};

/** An entry that imports every runtime-neutral entry whole and runs a task with them. */
const PROBE = `
import * as root from ${JSON.stringify(here("./index.ts"))};
import * as protocol from ${JSON.stringify(here("./protocol/index.ts"))};
import * as kit from ${JSON.stringify(here("./store-kit.ts"))};
import * as modelKit from ${JSON.stringify(here("./model-kit/index.ts"))};
import * as quotas from ${JSON.stringify(here("./quotas/index.ts"))};
import * as trust from ${JSON.stringify(here("./trust/index.ts"))};
import * as timeTravel from ${JSON.stringify(here("./time-travel/index.ts"))};
import { z } from "zod";
export const entries = { root, protocol, kit, modelKit, quotas, trust, timeTravel };

/** A model that answers from a script: first a call that needs approval, then a final text. */
function scripted(turns) {
  let n = 0;
  return {
    id: "script:probe",
    async *stream() {
      const turn = turns[n++] ?? { text: "out of script" };
      if (turn.call !== undefined) {
        yield { type: "tool-call", toolCallId: "c" + n, toolName: turn.call.name, input: JSON.stringify(turn.call.input) };
        yield { type: "finish", finishReason: "tool-calls", usage: { inputTokens: 1, outputTokens: 1 } };
      } else {
        yield { type: "text-delta", id: "t", delta: turn.text };
        yield { type: "finish", finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } };
      }
    },
  };
}

export async function scenario() {
  const store = new root.MemoryStore();
  const ran = [];
  const tool = root.defineTool({
    name: "shout",
    description: "Shout a word",
    inputSchema: z.object({ word: z.string() }),
    needsApproval: true,
    execute: (input) => { ran.push(input); return String(input.word).toUpperCase(); },
  });
  const agent = { model: scripted([{ call: { name: "shout", input: { word: "hi" } } }, { text: "done" }]), tools: [tool] };
  const taskId = await root.startTask(store, { objective: "shout hi", principal: "p" });
  const parked = await root.runLeg({ store, agent }, taskId);
  const request = (await store.read(taskId)).find((event) => event.type === "approval_requested");
  await root.decideApproval(store, taskId, {
    callId: request.callId,
    digest: request.digest,
    decision: "approve",
    actor: { id: "p", verified: true, issuer: "probe" },
    principal: "p",
  });
  const done = await root.runLeg({ store, agent }, taskId);
  const events = await store.read(taskId);
  const cursor = kit.encodeCursor({ createdAt: "2026-01-01T00:00:00.000Z", taskId: "t-é" });
  return {
    parked: parked.status + ":" + parked.parkedReason,
    digest: request.digest,
    done: done.status + ":" + done.result,
    ran,
    // The log as written validates against the protocol's schema, event by event (the stamp aside).
    valid: events.every(({ taskId: _t, seq: _s, at: _a, ...event }) => protocol.taskEventSchema.safeParse(event).success),
    last: events.at(-1).type + ":" + events.at(-1).reason,
    cursor: [cursor, kit.decodeCursor(cursor)],
  };
}
`;

const probe: Plugin = {
  name: "probe",
  resolveId: (source) => (source === "probe" ? "\0probe" : null),
  load: (id) => (id === "\0probe" ? PROBE : null),
};

async function bundle(input: string, plugins: Plugin[]): Promise<string> {
  const build = await rolldown({
    input,
    platform: "browser",
    plugins: [noNodeBuiltins, ...plugins],
    onLog(level, log, handler) {
      // An import left unresolved would be a module the browser cannot load.
      if (log.code === "UNRESOLVED_IMPORT") handler("error", log);
      else handler(level, log);
    },
  });
  try {
    const { output } = await build.generate({ format: "iife", name: "probe" });
    return output[0].code;
  } finally {
    await build.close();
  }
}

/** The web platform's globals (WinterTC's minimum common API) that a runtime-neutral library may use. */
const WEB_GLOBALS = [
  "crypto",
  "TextEncoder",
  "TextDecoder",
  "atob",
  "btoa",
  "setTimeout",
  "clearTimeout",
  "setInterval",
  "clearInterval",
  "queueMicrotask",
  "structuredClone",
  "AbortController",
  "AbortSignal",
  "Event",
  "EventTarget",
  "DOMException",
  "URL",
  "performance",
  "console",
] as const;

/** A fresh V8 context with those globals and nothing of Node's. */
function webContext(): Record<string, unknown> {
  const source = globalThis as unknown as Record<string, unknown>;
  return createContext(Object.fromEntries(WEB_GLOBALS.map((name) => [name, source[name]])));
}

describe("a runtime-neutral core", () => {
  it("bundles the root, ./protocol, ./store-kit, ./model-kit, ./quotas and ./trust for the browser and runs a task without Node", async () => {
    const code = await bundle("probe", [probe]);
    const context = webContext();
    runInContext(`${code}\nglobalThis.probe = probe;`, context);
    expect(runInContext("typeof process + typeof require + typeof Buffer", context)).toBe(
      "undefinedundefinedundefined",
    );
    const { entries, scenario } = context.probe as {
      entries: Record<string, Record<string, unknown>>;
      scenario: () => Promise<Record<string, unknown>>;
    };
    expect(Object.keys(entries.root ?? {})).toContain("runLeg");
    expect(Object.keys(entries.protocol ?? {})).toContain("taskEventSchema");
    expect(Object.keys(entries.kit ?? {})).toContain("stampEvent");
    expect(Object.keys(entries.modelKit ?? {})).toContain("withRetry");
    expect(Object.keys(entries.quotas ?? {})).toContain("quotaGateFor");
    expect(Object.keys(entries.trust ?? {})).toContain("classifyToolCall");
    const result = await scenario();
    expect(result).toEqual({
      parked: "parked:approval",
      // The SHA-256 of the call's canonical input, as node:crypto computes it.
      digest: createHash("sha256").update('{"word":"hi"}', "utf8").digest("hex"),
      done: "completed:done",
      ran: [{ word: "hi" }],
      valid: true,
      last: "leg_ended:completed",
      cursor: [
        "WyIyMDI2LTAxLTAxVDAwOjAwOjAwLjAwMFoiLCJ0LcOpIl0",
        { createdAt: "2026-01-01T00:00:00.000Z", taskId: "t-é" },
      ],
    });
  });

  it("fails the bundle when a module reachable from a neutral entry imports a Node built-in", async () => {
    const sneaky: Plugin = {
      name: "sneaky",
      resolveId: (source) => (source === "sneaky" ? "\0sneaky" : null),
      load: (id) =>
        id === "\0sneaky"
          ? `import { hostname } from "node:os"; import * as root from ${JSON.stringify(here("./index.ts"))}; export const x = [hostname, root];`
          : null,
    };
    await expect(bundle("sneaky", [sneaky])).rejects.toThrow(/imports the Node built-in node:os/);
    // And so it does for the entry meant for Node, which is why it is a subpath of its own.
    await expect(bundle(here("./node/index.ts"), [])).rejects.toThrow(/Node built-in node:/);
  });
});
