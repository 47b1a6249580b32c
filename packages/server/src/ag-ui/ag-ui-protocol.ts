/** `agUi()`: the AG-UI endpoint as an opt-in protocol. */
import type { ServerProtocol } from "../server-protocol.ts";
import { agUiRoutes } from "./ag-ui-routes.ts";

/**
 * The AG-UI protocol for `createApp({ protocols })` or `serve({ protocols })`:
 * `POST /v1/agents/{name}/ag-ui` runs the agent on a thread (the thread is a task) and streams
 * AG-UI events; it is a `/v1` route, so it is in the OpenAPI document when mounted.
 */
export function agUi(): ServerProtocol {
  return { name: "ag-ui", routes: agUiRoutes };
}
