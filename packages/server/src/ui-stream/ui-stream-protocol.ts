/** `uiStream()`: the AI SDK's chat protocol (`useChat`) as an opt-in protocol. */
import type { ServerProtocol } from "../server-protocol.ts";
import { chatRoutes } from "./chat-routes.ts";

/**
 * The AI SDK UI message stream for `createApp({ protocols })` or `serve({ protocols })`:
 * `POST /v1/agents/{agent}/chat` (and `/v1/chat` for the default agent), its resume and its
 * transcript, as `useChat`'s `DefaultChatTransport` speaks them. `/v1` routes, so they are in
 * the OpenAPI document when mounted.
 */
export function uiStream(): ServerProtocol {
  return { name: "ui-stream", routes: chatRoutes };
}
