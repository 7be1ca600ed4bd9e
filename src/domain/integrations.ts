// Integrations: the shared catalog, and each organization's connections to it.
// Credentials are checked against the catalog entry's `schemaConfig`, sealed
// with the SecretBox and stored only as ciphertext; no read ever returns them.
import { z } from 'zod';
import { retryOnUniqueViolation } from '../db/prisma-errors.ts';
import { int } from '../records/values.ts';
import { badInput, notFound } from './errors.ts';
import type { Scope } from './scope.ts';
import type { SecretBox } from './secrets.ts';
import { parseOrThrow } from './validation.ts';
import { Outbox } from './webhook-events.ts';

const jsonObject = z.record(z.string(), z.unknown());

export const integrationConnect = z
  .strictObject({
    slug: z.string().min(1).meta({ description: "The catalog entry's slug, e.g. `hubspot`" }),
    credentials: jsonObject.meta({
      description: "The credentials the integration's schemaConfig lists; never readable",
    }),
    settings: jsonObject.optional().meta({ description: 'The settings; replaced whole on every connect' }),
  })
  .meta({ id: 'ConnectIntegration', description: 'A connection to a catalog integration (E10).' });
type IntegrationConnect = z.output<typeof integrationConnect>;

/** One member of `schemaConfig.credentials` or `schemaConfig.settings`. */
const fieldSpec = z.object({
  name: z.string(),
  type: z.enum(['string', 'url', 'boolean', 'integer']),
  required: z.boolean(),
});

const schemaConfigShape = z.object({ credentials: z.array(fieldSpec).default([]) });

function memberSchema(spec: z.infer<typeof fieldSpec>): z.ZodType {
  switch (spec.type) {
    case 'boolean':
      return z.boolean();
    case 'integer':
      return int();
    case 'url':
      return z.url();
    default:
      // A required credential given as "" is as good as missing.
      return spec.required ? z.string().min(1) : z.string();
  }
}

/** The credentials object a catalog entry accepts: its listed members only, required ones present. */
function credentialsSchema(schemaConfig: unknown) {
  const { credentials } = schemaConfigShape.parse(schemaConfig);
  return z.strictObject(
    Object.fromEntries(
      credentials.map((spec) => [spec.name, spec.required ? memberSchema(spec) : memberSchema(spec).optional()]),
    ),
  );
}

/**
 * Connects the organization to the integration with `slug` (POST /integrations), with its
 * `integration.connected` event. Connecting an already connected slug
 * replaces its credentials and settings and keeps the connection's id.
 */
export async function connectIntegration(scope: Scope, secrets: SecretBox, data: IntegrationConnect) {
  const integration = await scope.prisma.integration.findUnique({ where: { slug: data.slug } });
  if (!integration) {
    throw badInput([{ path: 'slug', rule: 'exists', message: `no integration has slug "${data.slug}"` }]);
  }
  // What the credentials must be is the catalog entry's: checked here, where it is read.
  const credentials = parseOrThrow(credentialsSchema(integration.schemaConfig), data.credentials, ['credentials']);
  const values = {
    credentialsEncrypted: secrets.seal(JSON.stringify(credentials)),
    settings: (data.settings ?? {}) as object,
    isActive: true,
  };
  const where = {
    organizationId_integrationId: { organizationId: scope.viewer.organizationId, integrationId: integration.id },
  };
  const upsert = () =>
    scope.prisma.$transaction(async (tx) => {
      const connection = await tx.organizationIntegration.upsert({
        where,
        create: { organizationId: scope.viewer.organizationId, integrationId: integration.id, ...values },
        update: values,
      });
      await new Outbox()
        .add('integration.connected', scope.viewer.organizationId, { kind: 'integration', id: connection.id })
        .write(tx, connection.updatedAt);
      return connection;
    });
  // Two first connects at once: the loser's insert hits the unique key; it now updates.
  return retryOnUniqueViolation(upsert);
}

/** Removes a connection and its credentials; another organization's id is not found. */
export async function disconnectIntegration(scope: Scope, id: string) {
  const { count } = await scope.prisma.organizationIntegration.deleteMany({ where: { id } });
  if (count === 0) throw notFound('integration connection');
  return id;
}
