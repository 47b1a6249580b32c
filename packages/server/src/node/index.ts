/**
 * `@sema-agent/server/node`: what runs the API on Node — `serve` (the API, its protocols and a
 * worker pool in one process, what `sema serve` runs) and `listen` (any app on Node's http server).
 *
 * @module @sema-agent/server/node
 */
export { type AccessLogEntry, type Listening, type ListenOptions, listen } from "./listen.ts";
export { type ServeOptions, type Serving, serve } from "./serve.ts";
