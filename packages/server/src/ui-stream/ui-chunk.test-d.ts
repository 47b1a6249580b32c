// Sema's UI stream types are the AI SDK's: each chunk and message Sema builds is assignable to the
// `ai` package's own types (checked by the typecheck, which includes test files).
import type { UIMessage, UIMessageChunk } from "ai";
import type { UiChunk, UiMessage } from "./ui-chunk.ts";

type Assignable<A, B> = [A] extends [B] ? true : false;

const chunks: Assignable<UiChunk, UIMessageChunk> = true;
const messages: Assignable<UiMessage, UIMessage> = true;
void chunks;
void messages;
