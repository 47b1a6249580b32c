/** `webConsole()`: the web console at `/` as an opt-in protocol. */
import type { ServerProtocol } from "../server-protocol.ts";
import { consoleRoutes } from "./console-routes.ts";

/**
 * The web console for `createApp({ protocols })` or `serve({ protocols })`: a static page at `/`
 * and its modules under `/console/`, read once when mounted and served from memory. It talks to
 * `/v1` with the token the person signs in with.
 */
export function webConsole(): ServerProtocol {
  return {
    name: "console",
    mount(app) {
      app.route("/", consoleRoutes());
    },
  };
}
