/**
 * The authenticated `Caller` rides on the SDK's `ServerCallContext` (its state bag) from the
 * binding's auth middleware to the request handler; the SDK's `User` mirrors it for its own use.
 */
import { ServerCallContext, type User } from "@a2a-js/sdk/server";
import type { Caller } from "../ingress/caller.ts";

const CALLER_KEY = "sema/caller";
const SIGNAL_KEY = "sema/signal";

class CallerUser implements User {
  readonly #caller: Caller;
  constructor(caller: Caller) {
    this.#caller = caller;
  }
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return `${this.#caller.principal}/${this.#caller.actor.id}`;
  }
}

/**
 * A call context for `caller`, at the protocol version the request asked for; `signal` ends the
 * call's streams (the client went away).
 */
export function contextFor(
  caller: Caller,
  requestedVersion: string | undefined,
  signal: AbortSignal,
): ServerCallContext {
  return new ServerCallContext({
    user: new CallerUser(caller),
    state: new Map<string, unknown>([
      [CALLER_KEY, caller],
      [SIGNAL_KEY, signal],
    ]),
    ...(requestedVersion === undefined ? {} : { requestedVersion }),
  });
}

/** The caller a context was made for (the bindings never call the handler without one). */
export function callerOf(context: ServerCallContext): Caller {
  const caller = context.state.get(CALLER_KEY) as Caller | undefined;
  if (caller === undefined) throw new Error("A2A call without an authenticated caller");
  return caller;
}

/** The signal that ends the call's streams. */
export function signalOf(context: ServerCallContext): AbortSignal | undefined {
  return context.state.get(SIGNAL_KEY) as AbortSignal | undefined;
}
