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
