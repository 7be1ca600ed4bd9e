// The schema as an Apollo Federation 2 subgraph (FEDERATION=on,
// docs/federation.md): the gateway's own types, and a router may resolve the
// entities below by id from other subgraphs' answers (`_entities`). Each
// reference is read through the request's by-id loader: the references of one
// `_entities` call of a type are one statement, confined to the caller's
// organization (another organization's id reads as null).
import { builder, type NodeRef } from './builder.ts';
import type { GraphQLContext } from './context.ts';

/** The loaders that read an entity's row by id. */
type ByIdLoader = 'agent' | 'workflow' | 'batch' | 'run' | 'prospect' | 'sipTrunk' | 'phoneNumber';

/** Makes `ref` an entity keyed by its id (`@key(fields: "id")`), read by `loader`. */
export function entityById<Name extends Parameters<typeof builder.prismaNode>[0]>(
  ref: NodeRef<Name>,
  loader: ByIdLoader,
): void {
  builder.asEntity(ref, {
    key: builder.selection<{ id: string }>('id'),
    resolveReference: ({ id }, context: GraphQLContext) => context.loaders[loader].load(id) as never,
  });
}
