/**
 * Issue 29, finding 11a: a malformed percent-encoding in an A2A REST path (a task id, a push
 * config id) is the request's fault, a 400 `INVALID_ARGUMENT` like any other malformed request —
 * never a 500. Over a real socket, with the id written raw on the wire (a client encodes its ids).
 */
import { afterEach, describe, expect, it } from "vitest";
import { a2aWorld } from "../test-support/a2a-server.ts";
import { scriptedAgent } from "../test-support/api-fixture.ts";

const world = a2aWorld();
afterEach(() => world.stop());

/** Ten ways a percent-encoding can be malformed, each invalid for `decodeURIComponent`. */
const MALFORMED = [
  "%E0%A4%A", // a truncated escape inside a sequence
  "%", // a bare percent sign
  "abc%2", // one hex digit
  "%G0", // not hex
  "%ZZ", // not hex at all
  "%C3", // a lead byte with no continuation
  "%FF", // never a UTF-8 byte
  "%C0%80", // an overlong encoding of NUL
  "%ED%A0%80", // a UTF-16 surrogate
  "%80abc", // a lone continuation byte
];

describe("malformed percent-encoding in A2A REST paths", () => {
  it("answers 400 INVALID_ARGUMENT for each of ten malformed forms, on every path with an id", async () => {
    const server = await world.start({ default: scriptedAgent([{ text: "done" }]) });
    const token = server.serving.firstToken?.token ?? "";
    const base = server.serving.url;
    const routes = (id: string): [string, string][] => [
      ["GET", `/a2a/v1/tasks/${id}`],
      ["POST", `/a2a/v1/tasks/${id}:cancel`],
      ["GET", `/a2a/v1/tasks/${id}/pushNotificationConfigs`],
      ["GET", `/a2a/v1/tasks/x/pushNotificationConfigs/${id}`],
      ["GET", `/a2a/agents/default/v1/tasks/${id}`],
    ];
    for (const malformed of MALFORMED) {
      for (const [method, path] of routes(malformed)) {
        const response = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          ...(method === "POST" ? { body: "{}" } : {}),
        });
        const text = await response.text();
        expect(response.status, `${method} ${path}: ${text}`).toBe(400);
        expect(JSON.parse(text), `${method} ${path}`).toMatchObject({ error: { status: "INVALID_ARGUMENT" } });
      }
    }
  });
});
