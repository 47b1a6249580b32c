/** The serving layer's limits, each with a default a single team's server can live with. */

export interface Limits {
  /** Largest request body accepted, in bytes (413 above). */
  maxBodyBytes: number;
  /** Longest objective or input text, in code points after sanitizing (413 above). */
  maxTextChars: number;
  /** Requests per minute per principal, on average (429 above). */
  ratePerMinute: number;
  /** Requests a principal may make at once before the average applies. */
  rateBurst: number;
  /** Seconds between SSE heartbeat comments, so proxies keep an idle stream open. */
  heartbeatMs: number;
  /**
   * Bytes an event stream queues for a client that does not read them before it is cut with
   * `event: stream_overflow` (the client resumes with Last-Event-ID). The stored log is read at
   * the client's pace, so this bounds live frames only: a client that never reads costs this much
   * at most, never the log.
   */
  sseMaxBufferedBytes: number;
  /** Bytes all event streams of the process may queue together; over it, the largest backlogs are cut first. */
  sseMaxTotalBufferedBytes: number;
  /** Milliseconds between re-checks of an open stream's token: a revoked token's stream ends within this. */
  sseRecheckMs: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxBodyBytes: 256 * 1024,
  maxTextChars: 32_000,
  ratePerMinute: 600,
  rateBurst: 120,
  heartbeatMs: 15_000,
  sseMaxBufferedBytes: 4 * 1024 * 1024,
  sseMaxTotalBufferedBytes: 256 * 1024 * 1024,
  sseRecheckMs: 500,
};
