// SPEC.md's error body, the one shape every failed HTTP response has.

export interface ErrorBody {
  status: false;
  message: string;
  error: unknown;
  data: null;
}

export function errorBody(message: string, error: unknown = null): ErrorBody {
  return { status: false, message, error, data: null };
}
