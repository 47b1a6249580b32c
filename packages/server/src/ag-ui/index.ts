/**
 * `@sema-agent/server/ag-ui`: the AG-UI protocol (`agUi()`) for `createApp` and `serve`. Needs
 * `@ag-ui/core` installed beside the server (an optional peer).
 *
 * @module @sema-agent/server/ag-ui
 */
export { agUi } from "./ag-ui-protocol.ts";
