/**
 * `@sema-agent/server/ui-stream`: the AI SDK's UI message stream (`uiStream()`), the protocol
 * `useChat` speaks, for `createApp` and `serve`. It needs no SDK on the server.
 *
 * @module @sema-agent/server/ui-stream
 */
export { uiStream } from "./ui-stream-protocol.ts";
