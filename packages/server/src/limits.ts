/** The serving layer's limits, each with a default a single team's server can live with. */

export interface Limits {
  /** Largest request body accepted, in bytes (413 above). */
  maxBodyBytes: number;
  /**
   * Deepest nesting of arrays and objects a JSON body may have (400 above, naming the path where
   * it stopped), checked on the text before it is parsed or walked. At most
   * `MAX_JSON_DEPTH_CEILING`: the schema checks after it recurse (and core refuses a value nested
   * deeper than 64 in an event anyway).
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

/**
 * The highest `maxJsonDepth` a server accepts: schema validation recurses once per level, and
 * about 2,000 levels overflow its stack.
 */
export const MAX_JSON_DEPTH_CEILING = 512;

/** `DEFAULT_LIMITS` with `overrides`, refusing a depth limit the schema checks could not bear. */
export function resolveLimits(overrides: Partial<Limits> = {}): Limits {
  const limits: Limits = { ...DEFAULT_LIMITS, ...overrides };
  const depth = limits.maxJsonDepth;
  if (!Number.isInteger(depth) || depth < 1 || depth > MAX_JSON_DEPTH_CEILING)
    throw new TypeError(`limits.maxJsonDepth must be an integer from 1 to ${MAX_JSON_DEPTH_CEILING}, got ${depth}`);
  return limits;
}
