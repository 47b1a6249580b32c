/**
 * An A2A stream as a Server-Sent Events response: one `data:` frame per item, a comment line as a
 * heartbeat, and the request's abort (the client went away) stopping the generator, and with it
 * the store watch under it.
 */

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store",
  "x-accel-buffering": "no",
  "x-content-type-options": "nosniff",
};

/**
 * Frames of `items` (already encoded `data:` payloads); `first` is the item already pulled (the
 * binding pulls one before answering, so an error before the stream starts is a plain response).
 */
export function sseResponse(
  first: string,
  items: AsyncIterator<string>,
  options: { heartbeatMs: number; abort: AbortController; onError: (error: unknown) => string },
): Response {
  const encoder = new TextEncoder();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`data: ${first}\n\n`));
      heartbeat = setInterval(() => {
        try {
          controller.enqueue(encoder.encode(": keep-alive\n\n"));
        } catch {
          clearInterval(heartbeat);
        }
      }, options.heartbeatMs);
    },
    async pull(controller) {
      try {
        const next = await items.next();
        if (next.done === true) {
          clearInterval(heartbeat);
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(`data: ${next.value}\n\n`));
      } catch (error) {
        clearInterval(heartbeat);
        controller.enqueue(encoder.encode(options.onError(error)));
        controller.close();
      }
    },
    cancel() {
      clearInterval(heartbeat);
      options.abort.abort();
      void items.return?.();
    },
  });
  return new Response(body, { headers: SSE_HEADERS });
}
