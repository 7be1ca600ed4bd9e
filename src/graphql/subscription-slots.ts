// Subscriptions held open are bounded: an organization holds at most
// SUBSCRIPTIONS_PER_ORGANIZATION on an instance, over graphql-ws and SSE
// together, and one graphql-ws connection at most SUBSCRIPTIONS_PER_CONNECTION
// (src/graphql/websocket.ts). Each holds a stream and a listener on the
// instance's batch-progress hub: unbounded, one tenant's subscriptions would
// take the memory and the event fan-out every tenant of the instance shares.
// Counted per instance, in memory: a subscription lives on the instance whose
// socket holds it, and goes with it.
import { GraphQLError } from 'graphql';

/** A refused subscription: its organization, or its connection, holds all it may. */
export const tooManySubscriptions = (message: string) =>
  new GraphQLError(message, { extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', status: 429 } });

/** Gives an organization's slot back (once; any later call does nothing). */
export type ReleaseSlot = () => void;

/** The subscriptions each organization holds open on this instance. */
export class SubscriptionSlots {
  readonly #held = new Map<string, number>();

  constructor(private readonly perOrganization: number) {}

  /** A slot for one more subscription of the organization, or the refusal when it holds all it may. */
  take(organizationId: string): ReleaseSlot | GraphQLError {
    const held = this.#held.get(organizationId) ?? 0;
    if (held >= this.perOrganization) {
      return tooManySubscriptions(
        `the organization holds ${held} subscriptions on this instance, the most it may (SUBSCRIPTIONS_PER_ORGANIZATION): end one first`,
      );
    }
    this.#held.set(organizationId, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.#held.get(organizationId)! - 1;
      if (left === 0) this.#held.delete(organizationId);
      else this.#held.set(organizationId, left);
    };
  }
}
