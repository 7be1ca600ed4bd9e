import { rotateSigningSecret } from '../domain/signing-secret.ts';
import { builder } from './builder.ts';
import { scopeOf } from './context.ts';

const SigningSecret = builder.objectRef<{ secret: string; rotatedAt: Date }>('SigningSecret').implement({
  description: "The organization's new signing secret, shown this once.",
  fields: (t) => ({
    secret: t.exposeString('secret', {
      description:
        '`whsec_…`: verify the `webhook-signature` of pre-call webhooks and webhook steps with it (Standard Webhooks).',
    }),
    rotatedAt: t.expose('rotatedAt', { type: 'DateTime', description: 'When it replaced the previous one.' }),
  }),
});

builder.mutationField('rotateSigningSecret', (t) =>
  t.field({
    type: SigningSecret,
    description:
      'Makes a new signing secret for the requests the service makes for the organization; the previous one stops ' +
      'signing at once (`POST /signing-secret/rotate`).',
    resolve: (_root, _args, context) => rotateSigningSecret(scopeOf(context), context.secrets),
  }),
);
