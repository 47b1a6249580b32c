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
  /**
   * Largest body of a request that may carry content parts (`POST /v1/tasks`, `POST
   * /v1/tasks/{taskId}/inputs`), in bytes (413 above): base64 makes 3 bytes of an image 4, so this
   * is a third more than `maxContentBytes`. Every other route reads under `maxBodyBytes`.
   */
  maxContentBodyBytes: number;
  /**
   * Largest body of `POST /v1/tasks/import` (an export file, whose blobs are base64), in bytes (413
   * above). Every other route reads under `maxBodyBytes` or `maxContentBodyBytes`.
   */
  maxImportBodyBytes: number;
  /**
   * Replays (`POST /v1/tasks/{taskId}/replay`) the process runs at once: each runs the task's
   * legs again in memory, which is CPU and memory of this process. One per principal at a time,
   * and at most this many in all; past either, a 429 `RateLimited` with `Retry-After`.
   */
  maxConcurrentReplays: number;
  /**
   * Largest body of `POST /v1/evals/datasets/{name}` (a dataset file, JSON Lines, or the JSON
   * naming tasks to make it of), in bytes (413 above).
   */
  maxDatasetBodyBytes: number;
  /**
   * Cases an experiment (`POST /v1/evals/experiments`) runs at once, at most (1 to 256): each is
   * a task running on this node, beside its workers' legs. A principal's `concurrentTasks` quota,
   * when lower, caps it further; one experiment per principal runs on a node at a time.
   */
  maxExperimentConcurrency: number;
  /** Largest image or file part, in decoded bytes (413, `ContentTooLarge`, above). */
  maxPartBytes: number;
  /** Largest total of one request's image and file parts, in decoded bytes (413, `ContentTooLarge`, above). */
  maxContentBytes: number;
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
  /**
   * Task-list streams (`GET /v1/tasks/stream`) one principal may hold open at once in this process
   * (each studio tab holds one); past it, a 429 `RateLimited` with `Retry-After` until one closes.
   */
  maxTaskListStreams: number;
}

/** The limits a server uses where its options set none. */
export const DEFAULT_LIMITS: Limits = {
  maxBodyBytes: 256 * 1024,
  maxJsonDepth: 64,
  maxTextChars: 32_000,
  maxContentBodyBytes: 8 * 1024 * 1024,
  maxImportBodyBytes: 32 * 1024 * 1024,
  maxConcurrentReplays: 2,
  maxDatasetBodyBytes: 8 * 1024 * 1024,
  maxExperimentConcurrency: 8,
  maxPartBytes: 4 * 1024 * 1024,
  maxContentBytes: 6 * 1024 * 1024,
  ratePerMinute: 600,
  rateBurst: 120,
  heartbeatMs: 15_000,
  sseMaxBufferedBytes: 4 * 1024 * 1024,
  sseMaxTotalBufferedBytes: 256 * 1024 * 1024,
  sseRecheckMs: 500,
  maxTaskListStreams: 16,
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
