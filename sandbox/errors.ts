/**
 * The service's error body `{ error: { code, message, status, details? } }` and the exception that
 * carries one from any hook or handler to the error handler.
 */

export interface ErrorBody {
  error: { code: string; message: string; status: number; details?: Record<string, unknown> };
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Seconds for a Retry-After header (429, 503). */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = "ApiError";
  }

  toBody(): ErrorBody {
    const error: ErrorBody["error"] = { code: this.code, message: this.message, status: this.status };
    if (this.details !== undefined) error.details = this.details;
    return { error };
  }
}

/** The code for an HTTP status that fastify itself produced (no route-level code applies). */
export function codeForStatus(status: number): string {
  switch (status) {
    case 400:
      return "invalid_request";
    case 401:
      return "invalid_api_key";
    case 403:
      return "forbidden";
    case 404:
      return "not_found";
    case 405:
      return "method_not_allowed";
    case 406:
      return "not_acceptable";
    case 408:
      return "request_timeout";
    case 413:
      return "payload_too_large";
    case 414:
      return "uri_too_long";
    case 415:
      return "unsupported_media_type";
    case 429:
      return "rate_limited";
    case 503:
      return "service_unavailable";
    default:
      return status >= 500 ? "internal_error" : "invalid_request";
  }
}
