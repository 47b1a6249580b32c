/**
 * Which protocols `sema serve` mounts beside `/v1`: `--protocols` on the command line, else
 * `protocols` of the config, else all of them. Each is imported only when asked for, so a node
 * serving `/v1` alone loads none of the A2A, MCP or AG-UI SDKs.
 */
import type { ServerProtocol, TokenStore } from "@sema-agent/server";
import type { PushConfigStore } from "@sema-agent/server/a2a";
import { z } from "zod";
import { UsageError } from "./context.ts";

/** Every protocol `sema serve` can mount, in the order it mounts them. */
export const PROTOCOL_NAMES = ["a2a", "mcp", "ag-ui", "ui-stream", "console"] as const;
/** One of {@link PROTOCOL_NAMES}. */
export type ProtocolName = (typeof PROTOCOL_NAMES)[number];

/** `protocols` of a config file: a list of names, each once (`[]` serves `/v1` alone). */
export const protocolListSchema = z
  .array(z.enum(PROTOCOL_NAMES))
  .refine((names) => new Set(names).size === names.length, "names a protocol twice");

/** `--protocols a2a,mcp` (or `none`) as names; a wrong name is a usage error listing the right ones. */
export function parseProtocolsFlag(value: string): ProtocolName[] {
  if (value.trim() === "none") return [];
  const names = value.split(",").map((name) => name.trim());
  const result = protocolListSchema.safeParse(names);
  if (!result.success)
    throw new UsageError(
      `--protocols must be "none" or a comma-separated list of ${PROTOCOL_NAMES.join(", ")}, each once; got ${value}`,
    );
  return result.data;
}

/** What the A2A protocol needs from the host: its push settings, or none (`--a2a-push off`). */
export interface A2AHost {
  push: { configs: PushConfigStore; tokens: TokenStore } | undefined;
  publicUrl: string | undefined;
}

/** The protocols named, built from their subpaths (imported only now), in `PROTOCOL_NAMES` order. */
export async function loadProtocols(
  names: readonly ProtocolName[],
  a2aHost: () => Promise<A2AHost>,
): Promise<ServerProtocol[]> {
  const wanted = new Set(names);
  const protocols: ServerProtocol[] = [];
  for (const name of PROTOCOL_NAMES) {
    if (!wanted.has(name)) continue;
    protocols.push(await load(name, a2aHost));
  }
  return protocols;
}

async function load(name: ProtocolName, a2aHost: () => Promise<A2AHost>): Promise<ServerProtocol> {
  switch (name) {
    case "a2a": {
      const { a2a } = await import("@sema-agent/server/a2a");
      const host = await a2aHost();
      return a2a({
        ...(host.push === undefined ? {} : { push: host.push }),
        ...(host.publicUrl === undefined ? {} : { publicUrl: host.publicUrl }),
      });
    }
    case "mcp":
      return (await import("@sema-agent/server/mcp")).mcp();
    case "ag-ui":
      return (await import("@sema-agent/server/ag-ui")).agUi();
    case "ui-stream":
      return (await import("@sema-agent/server/ui-stream")).uiStream();
    case "console":
      return (await import("@sema-agent/server/console")).webConsole();
  }
}
