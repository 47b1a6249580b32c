/** The serving layer's limits, each with a default a single team's server can live with. */

export interface Limits {
  /** Largest request body accepted, in bytes (413 above). */
  maxBodyBytes: number;
  /**
   * Deepest nesting of arrays and objects a JSON body may have (400 above, naming the path where
   * it stopped), checked on the text before it is parsed or walked.
   */
  maxJsonDepth: number;
  /** Longest objective or input text, in code points after sanitizing (413 above). */
  maxTextChars: number;
  /** Requests per minute per principal, on average (429 above). */
  ratePerMinute: number;
  /** Requests a principal may make at once before the average applies. */
  rateBurst: number;
  /** Seconds between SSE heartbeat comments, so proxies keep an idle stream open. */
  heartbeatMs: number;
  /**
   * Frames an event stream queues for a client that does not read them before it is ended (the
   * client resumes with Last-Event-ID; the server holds no unbounded backlog).
   */
  sseMaxQueuedFrames: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxBodyBytes: 256 * 1024,
  maxJsonDepth: 64,
  maxTextChars: 32_000,
  ratePerMinute: 600,
  rateBurst: 120,
  heartbeatMs: 15_000,
  sseMaxQueuedFrames: 10_000,
};
