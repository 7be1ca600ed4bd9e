// Every mutation is a write an API caller makes, and appends one audit event
// in its own transaction (src/domain/audit-log.ts): wrapped here once, for
// every Mutation field, so REST (which runs these mutations) is recorded the
// same way and a new mutation cannot be forgotten. The object a mutation
// changes is read from its arguments: `id`, else its one `…Id` argument (the
// `create…` mutations excepted: those name a parent); the organization's own
// settings and signing secret (`update…`/`rotate…` without an id) change the
// organization. Otherwise the object it made, from its answer's `id`.
import {
  defaultFieldResolver,
  type GraphQLFieldResolver,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  getNamedType,
} from 'graphql';
import { type AuditTarget, type ChangedObject, recordWrite } from '../domain/audit-log.ts';
import { modelOf } from './builder.ts';
import { type GraphQLContext, inTransaction } from './context.ts';
import { decodeGlobalID, encodeGlobalID, primaryKeyOf } from './global-ids.ts';

/**
 * A model of a transaction client, as the before and after images read it: by
 * id, which is not every model's whole key (Run's is (id, organizationId), a
 * partitioned table's), so not findUnique. The tenant client adds the organization.
 */
interface ReadModel {
  findFirst(query: { where: { id: string | number } }): Promise<Record<string, unknown> | null>;
}

const typeOfId = (id: string) => {
  try {
    return decodeGlobalID(id);
  } catch {
    return null;
  }
};

/** The object `type` `id` as a write changes it: read in the write's transaction, before it and after. */
function changedObject(type: string, id: string): ChangedObject | null {
  const model = modelOf(type);
  if (!model) return null;
  const delegate = model.charAt(0).toLowerCase() + model.slice(1);
  const key = primaryKeyOf(type, id);
  return {
    target: { type, id },
    // findFirst: a tenant table's unique key is (id, organizationId), the organization the tenant client adds.
    read: (tx) => (tx as Record<string, ReadModel>)[delegate]!.findFirst({ where: { id: key } }),
  };
}

/** What a mutation names as the object it changes, before it runs. */
function namedObject(field: string, args: Record<string, unknown>, context: GraphQLContext): ChangedObject | null {
  if (!field.startsWith('create')) {
    const named = args.id ?? Object.entries(args).find(([name, value]) => name.endsWith('Id') && value)?.[1];
    const decoded = typeof named === 'string' ? typeOfId(named) : null;
    if (decoded) return changedObject(decoded.typename, typeof named === 'string' ? named : decoded.id);
    if (named !== undefined) return null;
  }
  if (/^(update|rotate)/.test(field)) return changedObject('Organization', context.viewer.organizationId);
  return null;
}

/**
 * The object a mutation made, from its answer: its `id` (an integer id is
 * typed by the answer's type), else the first `…Id` member that is an id of
 * this API (`IssuedApiKey.apiKeyId`). A create that made several objects
 * names the first its answer holds: `createProspects` its first prospect,
 * `createSipTrunk` (POST /sip-trunks) the pair's inbound trunk,
 * `createPhoneNumbers` (POST /phone-numbers/bulk) its first number.
 */
function madeObject(result: unknown, info: GraphQLResolveInfo, nested = false): AuditTarget | null {
  if (!result || typeof result !== 'object') return null;
  if (Array.isArray(result)) return madeObject(result[0], info, nested);
  const answer = result as Record<string, unknown>;
  // Only the answer's own type types an integer id: a nested object's is another type.
  if (typeof answer.id === 'number' && !nested) {
    const type = getNamedType(info.returnType).name;
    return { type, id: encodeGlobalID(type, answer.id) };
  }
  for (const [member, id] of [['id', answer.id] as const, ...Object.entries(answer)]) {
    if (typeof id !== 'string' || (member !== 'id' && !member.endsWith('Id'))) continue;
    const decoded = typeOfId(id);
    if (decoded) return { type: decoded.typename, id };
  }
  if (nested || !info.fieldName.startsWith('create')) return null;
  for (const inner of Object.values(answer)) {
    const made = madeObject(inner, info, true);
    if (made) return made;
  }
  return null;
}

/**
 * Mutations that wait on LiveKit (POST /sip-trunks, /phone-numbers,
 * /runs/{run_id}/attempts/{attempt}/transfer): a transaction held across that
 * call would hold a connection for it (the embedded database's only one, so
 * every other request would wait, and two requests that LiveKit answers
 * together would never finish). They write in transactions of their own and
 * take back in LiveKit what fails here; their event is appended once the
 * write has committed, in a transaction of its own.
 */
const CALLING_OUT = new Set(['createSipTrunk', 'createPhoneNumber', 'createPhoneNumbers', 'transferCall']);

function auditedAfterwards(
  field: string,
  resolve: GraphQLFieldResolver<unknown, GraphQLContext>,
): GraphQLFieldResolver<unknown, GraphQLContext> {
  return async (source, args, context, info) => {
    const result = await resolve(source, args, context, info);
    const named = namedObject(field, args, context);
    return recordWrite(
      context.db,
      {
        organizationId: context.viewer.organizationId,
        actor: context.actor,
        operation: field,
        changed: null,
        made: (answer) => named?.target ?? madeObject(answer, info),
      },
      async () => result,
    );
  };
}

/**
 * Mutations that append their own event: a call record's part (POST
 * /runs/{run_id}/attempts/{attempt}/record, reported many times a call) is
 * one statement that writes the event with it (src/domain/call-records.ts),
 * where a transaction of Prisma's around it would cost several round trips.
 * Their resolver gets the event to append as `context.audit`.
 */
const AUDITED_BY_THEMSELVES = new Set(['reportCallRecord']);

function auditedByItself(
  field: string,
  resolve: GraphQLFieldResolver<unknown, GraphQLContext>,
): GraphQLFieldResolver<unknown, GraphQLContext> {
  return (source, args, context, info) =>
    resolve(
      source,
      args,
      {
        ...context,
        audit: {
          organizationId: context.viewer.organizationId,
          actor: context.actor,
          operation: field,
          changed: namedObject(field, args, context),
          made: (answer) => madeObject(answer, info),
        },
      },
      info,
    );
}

function audited(
  field: string,
  resolve: GraphQLFieldResolver<unknown, GraphQLContext>,
): GraphQLFieldResolver<unknown, GraphQLContext> {
  if (CALLING_OUT.has(field)) return auditedAfterwards(field, resolve);
  if (AUDITED_BY_THEMSELVES.has(field)) return auditedByItself(field, resolve);
  return async (source, args, context, info) => {
    const announced = new Set<string>();
    const result = await recordWrite(
      context.db,
      {
        organizationId: context.viewer.organizationId,
        actor: context.actor,
        operation: field,
        changed: namedObject(field, args, context),
        made: (answer) => madeObject(answer, info),
      },
      (tx) =>
        resolve(
          source,
          args,
          inTransaction(context, tx, (id) => announced.add(id)),
          info,
        ) as Promise<unknown>,
    );
    for (const batchId of announced) context.events.batchChanged(batchId);
    return result;
  };
}

/** Wraps every mutation of `schema` so that it appends its audit event in its own transaction. */
export function auditMutations(schema: GraphQLSchema): GraphQLSchema {
  for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    field.resolve = audited(field.name, field.resolve ?? defaultFieldResolver);
  }
  return schema;
}
