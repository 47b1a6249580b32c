/** Every protocol, as `sema serve` mounts them by default, for tests that speak more than `/v1`. */
import { type A2AOptions, a2a } from "../a2a/a2a-protocol.ts";
import { agUi } from "../ag-ui/ag-ui-protocol.ts";
import { webConsole } from "../console/console-protocol.ts";
import { mcp } from "../mcp/mcp-protocol.ts";
import type { ServerProtocol } from "../server-protocol.ts";
import { uiStream } from "../ui-stream/ui-stream-protocol.ts";

/** A fresh list of every protocol (an `a2a()` with push settings mounts on one app only). */
export function allProtocols(options: { a2a?: A2AOptions } = {}): ServerProtocol[] {
  return [a2a(options.a2a), mcp(), agUi(), uiStream(), webConsole()];
}
