// @ts-check
// A task's event stream over `fetch`, because a browser EventSource cannot send the
// Authorization header. Resumes with Last-Event-ID after a dropped connection: the server sends
// stored events with `id:` = seq, so every stored event arrives exactly once, in order.

/** @typedef {{ id?: string, event?: string, data?: string, retry?: string }} SseFrame */

/**
 * Yield complete SSE frames (`{ id, event, data, retry }`) from a response body.
 * @param {ReadableStream<BufferSource>} body
 * @param {AbortSignal} [signal]
 * @returns {AsyncGenerator<SseFrame>}
 */
export async function* sseFrames(body, signal) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  // Stop reading at once when the caller stops following (a fetch given no signal would not).
  const cancel = () => reader.cancel().catch(() => {});
  signal?.addEventListener("abort", cancel, { once: true });
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n?/g, "\n");
      let end = buffer.indexOf("\n\n");
      while (end !== -1) {
        const frame = parseFrame(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (frame !== undefined) yield frame;
        end = buffer.indexOf("\n\n");
      }
    }
  } finally {
    signal?.removeEventListener("abort", cancel);
    reader.releaseLock();
  }
}

/** @returns {SseFrame | undefined} */
function parseFrame(/** @type {string} */ block) {
  /** @type {Record<string, string>} */
  const frame = {};
  const data = [];
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue; // heartbeats are comments
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "data") data.push(value);
    else if (field === "id" || field === "event" || field === "retry") frame[field] = value;
  }
  if (data.length > 0) frame.data = data.join("\n");
  return Object.keys(frame).length === 0 ? undefined : frame;
}

const sleep = (/** @type {number} */ ms, /** @type {AbortSignal} */ signal) =>
  /** @type {Promise<void>} */ (
    new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener(
        "abort",
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    })
  );

/**
 * Follow `taskId` from after `afterSeq` until the server says nothing will follow (204), the
 * token is refused, or `signal` aborts. `onStored(event)` gets each stored event once;
 * `onLive(event)` gets ephemeral deltas; `onState(state, detail?)` hears "connecting", "live",
 * "reconnecting", "ended", "unauthorized", "gone".
 *
 * @param {{ taskId: string, token: string, afterSeq?: number, onStored: (event: import("@sema-agent/core/protocol").StoredEvent) => void, onLive: (event: { type: string }) => void, onState: (state: string, detail?: string) => void, signal: AbortSignal, fetchImpl?: typeof fetch }} options
 * @returns {Promise<void>}
 */
export async function followTask({ taskId, token, afterSeq = 0, onStored, onLive, onState, signal, fetchImpl }) {
  const doFetch = fetchImpl ?? fetch;
  let last = afterSeq;
  let retryMs = 1000;
  while (!signal.aborted) {
    onState("connecting");
    try {
      /** @type {Record<string, string>} */
      const headers = { authorization: `Bearer ${token}`, accept: "text/event-stream" };
      if (last > 0) headers["last-event-id"] = String(last);
      const response = await doFetch(`/v1/tasks/${encodeURIComponent(taskId)}/events`, { headers, signal });
      if (response.status === 204) return onState("ended");
      if (response.status === 401) return onState("unauthorized");
      if (response.status === 404) return onState("gone");
      if (!response.ok || response.body === null) throw new Error(`HTTP ${response.status}`);
      onState("live");
      for await (const frame of sseFrames(response.body, signal)) {
        if (frame.retry !== undefined && /^\d+$/.test(frame.retry)) retryMs = Number(frame.retry);
        if (frame.data === undefined) continue;
        const event = JSON.parse(frame.data);
        if (frame.id === undefined) {
          onLive(event);
          continue;
        }
        const seq = Number(frame.id);
        // Never apply an event twice, whatever the wire does.
        if (seq <= last) continue;
        last = seq;
        onStored(event);
      }
    } catch (error) {
      if (signal.aborted) return;
      onState("reconnecting", error instanceof Error ? error.message : String(error));
    }
    if (signal.aborted) return;
    // The stream ended: either the task finished (the next request gets a 204) or the
    // connection dropped. Either way, ask again from the last stored event seen.
    onState("reconnecting");
    await sleep(retryMs, signal);
  }
}
