// Calls to the /v1 API with the signed-in token. Errors carry the API's own code and message.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** A function `(method, path, body?) => Promise<json>` that authenticates with `token`. */
export function apiClient(token, fetchImpl = fetch) {
  return async (method, path, body) => {
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
export function blobClient(token, fetchImpl = fetch) {
  return async (taskId, digest) => {
    const response = await fetchImpl(`/v1/tasks/${encodeURIComponent(taskId)}/blobs/${digest}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (!response.ok) throw new ApiError(response.status, `Http${response.status}`, response.statusText);
    return response.blob();
  };
}
