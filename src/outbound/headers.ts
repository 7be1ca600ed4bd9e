// The headers of a tenant's request. The gateway sets some itself (the
// Standard Webhooks signature, the content type, the trace context) and Node
// sets the framing ones; a tenant's header of the same name, in any case,
// would be sent beside them and leave the receiver two values, or change how
// the request is framed. Such headers are refused when saved
// (`reservedHeaderProblems`) and, for what was saved before, dropped when sent.

/** Lower-case names a tenant's request headers may not use. */
const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'host',
  'expect',
  'proxy-authorization',
  'proxy-connection',
  'traceparent',
  'tracestate',
]);

/** The tenant's headers that are not reserved, then the gateway's own. */
export function mergeHeaders(tenant: Record<string, string>, own: Record<string, string>): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const [name, value] of Object.entries(tenant)) {
    const lower = name.toLowerCase();
    if (!RESERVED_HEADERS.has(lower)) merged[lower] = value;
  }
  for (const [name, value] of Object.entries(own)) merged[name.toLowerCase()] = value;
  return merged;
}

/** The members of a header object (at `path`) whose names are reserved, as 400 problems. */
export function reservedHeaderProblems(headers: Record<string, string> | undefined, path: string) {
  return Object.keys(headers ?? {})
    .filter((name) => RESERVED_HEADERS.has(name.toLowerCase()))
    .map((name) => ({
      path: `${path}.${name}`,
      rule: 'not reserved',
      message: `${name} is set by the gateway and may not be given`,
    }));
}
