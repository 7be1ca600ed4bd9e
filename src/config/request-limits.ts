// What one client may ask of the gateway: how much a GraphQL request may ask
// for (src/graphql/protections.ts enforces it), how many requests an
// organization may make (src/requests/rate-limits.ts) and how many subscriptions it
// may hold (src/graphql/subscription-slots.ts). Read from the environment by src/config.ts.

export interface GraphQLLimits {
  maxDepth: number;
  maxAliases: number;
  maxTokens: number;
  maxDirectives: number;
  maxCost: number;
  /** The largest variables object, in bytes of compact JSON. */
  maxVariablesBytes: number;
  introspection: boolean;
  /** Only persisted operations run: those of the file and the REST layer's. */
  persistedOnly: boolean;
  /** A JSON object of sha256 hash -> operation text (the allow-list). */
  persistedOperationsFile?: string;
}

export const defaultGraphQLLimits: GraphQLLimits = {
  maxDepth: 12,
  maxAliases: 15,
  maxTokens: 2000,
  maxDirectives: 20,
  maxCost: 50_000,
  // The largest body REST takes (the batch create's, a batch of 100,000 prospect ids), so the
  // same input is accepted over GraphQL.
  maxVariablesBytes: 8 * 1024 * 1024,
  introspection: true,
  persistedOnly: false,
};

export interface RateLimits {
  /** Requests per organization per window, whichever of its keys they carry: every route, and graphql-ws operations. */
  perOrganization: number;
  /** Requests per organization per window on PATCH /agents/{agent_id}, counted separately. */
  agentUpdate: number;
  windowMs: number;
}

export interface SubscriptionLimits {
  /** Subscriptions one graphql-ws connection may hold at once. */
  perConnection: number;
  /** Subscriptions one organization may hold at once on an instance, graphql-ws and SSE together. */
  perOrganization: number;
}

export const defaultSubscriptionLimits: SubscriptionLimits = { perConnection: 100, perOrganization: 1000 };
