// @ts-check
// Calls to the /v1 API with the signed-in token. Errors carry the API's own code and message.

/**
 * `(method, path, body?) => Promise<json>`: the JSON body, whose shape is the route's schema
 * (packages/server/src/schemas); each caller reads the fields it uses.
 * @typedef {(method: string, path: string, body?: unknown) => Promise<any>} Api
 */

export class ApiError extends Error {
  /** @param {number} status @param {string} code @param {string} message */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** A function `(method, path, body?) => Promise<json>` that authenticates with `token`. */
/** @param {string} token @param {typeof fetch} [fetchImpl] @returns {Api} */
export function apiClient(token, fetchImpl = fetch) {
  return async (method, path, body) => {
    /** @type {Record<string, string>} */
    const headers = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const response = await fetchImpl(path, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const json = text === "" ? undefined : JSON.parse(text);
    if (!response.ok) {
      const error = json?.error ?? {};
      throw new ApiError(response.status, error.code ?? `Http${response.status}`, error.message ?? response.statusText);
    }
    return json;
  };
}

/**
 * `(taskId, digest) => Promise<Blob>`: the bytes of an image or file a task's input carried, with
 * the token (an `<img src>` could not send it), for the console to show through an object URL.
 */
/** @param {string} token @param {typeof fetch} [fetchImpl] */
export function blobClient(token, fetchImpl = fetch) {
  return async (/** @type {string} */ taskId, /** @type {string} */ digest) => {
    const response = await fetchImpl(`/v1/tasks/${encodeURIComponent(taskId)}/blobs/${digest}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (!response.ok) throw new ApiError(response.status, `Http${response.status}`, response.statusText);
    return response.blob();
  };
}

/**
 * `(path) => Promise<string>`: a GET whose body is not JSON (a dataset's JSON Lines), with the token.
 * @param {string} token @param {typeof fetch} [fetchImpl]
 */
export function textClient(token, fetchImpl = fetch) {
  return async (/** @type {string} */ path) => {
    const response = await fetchImpl(path, { headers: { authorization: `Bearer ${token}` } });
    if (!response.ok) throw new ApiError(response.status, `Http${response.status}`, response.statusText);
    return response.text();
  };
}
