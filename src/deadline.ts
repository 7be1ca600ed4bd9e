// Work bounded in time and by a caller's signal. Not `AbortSignal.any([signal,
// AbortSignal.timeout(ms)])`: in Node 20 the timeout signal inside such a
// composite can be garbage collected before it fires (nodejs/node#57736), and
// the request then waits for as long as the other side takes. Here a timer
// holds the controller it aborts, and both are released when the work ends.
export async function withDeadline<T>(
  signal: AbortSignal,
  ms: number,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError')), ms);
  const follow = () => controller.abort(signal.reason);
  if (signal.aborted) follow();
  else signal.addEventListener('abort', follow, { once: true });
  try {
    return await work(controller.signal);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', follow);
  }
}
