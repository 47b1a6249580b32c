/**
 * The one error table (`error-table.ts`): every code core can raise has its row, and every edge
 * reads it — `/v1` (and MCP, AG-UI, the chat route through `toHttpError`) and A2A — so no Sema
 * error falls through to a bare "internal error" on one protocol while another maps it. Issue 29:
 * A2A answered nine codes (SeqConflict, LeaseHeld, LeaseLost, ModelError, ToolError, HookFailed,
 * OutputInvalid, ConfigError, BlobNotFound) as internal errors. Over a real socket too, with the
 * official A2A client on both transports, for each of those nine.
 */
import { restStatusFor, toJsonRpcError } from "@a2a-js/sdk/errors";
import { MemoryStore, SemaError, type SemaErrorCode, type Store } from "@sema-agent/core";
import { SEMA_ERROR_CODE_LIST } from "@sema-agent/core/protocol";
import { createAgentRegistry } from "@sema-agent/worker";
import { afterEach, describe, expect, it, vi } from "vitest";
import { INTERNAL_MESSAGE, toA2AError } from "./a2a/errors.ts";
import { SEMA_ERROR_TABLE } from "./error-table.ts";
import { toHttpError } from "./http-error.ts";
import { MemoryTokenStore } from "./ingress/memory-token-store.ts";
import { type Serving, serve } from "./node/serve.ts";
import { a2aClient, type Transport } from "./test-support/a2a-server.ts";
import { allProtocols } from "./test-support/all-protocols.ts";
import { scriptedAgent } from "./test-support/api-fixture.ts";

/** The nine codes A2A answered as internal errors before the table. */
const ONCE_INTERNAL: SemaErrorCode[] = [
  "SeqConflict",
  "LeaseHeld",
  "LeaseLost",
  "ModelError",
  "ToolError",
  "HookFailed",
  "OutputInvalid",
  "ConfigError",
  "BlobNotFound",
];

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the error table", () => {
  it("has one row for every code core raises, and none other", () => {
    expect(SEMA_ERROR_CODE_LIST.length).toBeGreaterThanOrEqual(24);
    for (const code of SEMA_ERROR_CODE_LIST) expect(SEMA_ERROR_TABLE[code], code).toBeDefined();
    expect(Object.keys(SEMA_ERROR_TABLE).sort()).toEqual([...SEMA_ERROR_CODE_LIST].sort());
  });

  it.each(SEMA_ERROR_CODE_LIST)("%s: /v1 and A2A both answer from its row", (code) => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const row = SEMA_ERROR_TABLE[code];
    const error = new SemaError(code, `a ${code}`);
    const http = toHttpError(error);
    expect([http.status, http.code]).toEqual([row.status, code]);
    const a2a = toA2AError(error);
    const rpc = toJsonRpcError(a2a);
    if (row.a2a === "Internal") {
      expect(a2a.message).toBe(INTERNAL_MESSAGE);
      expect(rpc.code).toBe(-32603);
    } else {
      expect(a2a.name).toBe(`${row.a2a}Error`);
      expect(rpc.code).not.toBe(-32603);
      expect(rpc.data?.[0]).toMatchObject({ metadata: { code } });
      if (row.a2aRestStatus !== undefined) expect(restStatusFor(a2a)).toBe(row.a2aRestStatus);
    }
    // Nothing in the table is an unhandled error of the binding.
    expect(logged).not.toHaveBeenCalled();
  });
});

/** A MemoryStore that throws `failWith` from every method while it is set. */
function failingStore(): { store: Store; failWith: (code: SemaErrorCode | undefined) => void } {
  const inner = new MemoryStore();
  let failing: SemaErrorCode | undefined;
  const store = new Proxy(inner, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (failing !== undefined) throw new SemaError(failing, `the store says ${failing}`);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, failWith: (code) => (failing = code) };
}

let serving: Serving | undefined;
afterEach(async () => {
  await serving?.close({ deadlineMs: 2000 });
  serving = undefined;
});

describe.each<Transport>(["JSONRPC", "HTTP+JSON"])("A2A over %s, with the official client", (transport) => {
  it("answers each of the nine once-internal codes as its typed A2A error, not an internal one", async () => {
    const { store, failWith } = failingStore();
    serving = await serve({
      protocols: allProtocols(),
      store,
      tokens: new MemoryTokenStore(),
      agents: createAgentRegistry({ default: scriptedAgent([{ text: "hi" }]) }, "default"),
      port: 0,
      workers: false,
    });
    const client = await a2aClient(serving.url, serving.firstToken?.token ?? "", transport);
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    for (const code of ONCE_INTERNAL) {
      failWith(code);
      const error = await client.getTask({ tenant: "", id: "0190aaaa-0000-7000-8000-000000000000" }).then(
        () => undefined,
        (thrown: unknown) =>
          thrown as Error & {
            metadata?: Record<string, string>;
            data?: { metadata?: Record<string, string> }[];
            statusCode?: number;
          },
      );
      failWith(undefined);
      expect(error?.message, code).not.toMatch(/internal error/);
      expect(error?.name, code).toBe(`${SEMA_ERROR_TABLE[code].a2a}Error`);
      // REST decodes the ErrorInfo's metadata onto the error; JSON-RPC keeps it in `data`.
      expect(error?.metadata?.code ?? error?.data?.[0]?.metadata?.code, code).toBe(code);
      if (transport === "HTTP+JSON") expect(error?.statusCode, code).toBe(SEMA_ERROR_TABLE[code].a2aRestStatus ?? 500);
    }
    expect(logged).not.toHaveBeenCalled();
  });
});
