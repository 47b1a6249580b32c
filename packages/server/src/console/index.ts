/**
 * `@sema-agent/server/console`: the web console at `/` (`webConsole()`) for `createApp` and
 * `serve`. Its assets ship in the package and are read once, when it is mounted.
 *
 * @module @sema-agent/server/console
 */
export { webConsole } from "./console-protocol.ts";
