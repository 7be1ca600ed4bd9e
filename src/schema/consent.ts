// A prospect's consent history (src/domain/consents.ts): `Prospect.consents`,
// `addConsent`, `revokeConsent`.
import { addConsent, consentAdd, consentRevoke, consentsOf, revokeConsent } from '../domain/consents.ts';
import { builder } from './builder.ts';
import { scopeOf } from './context.ts';
import { typesFromSchema } from './json-schema-types.ts';
import { Prospect } from './prospect.ts';

export const Consent = builder.prismaObject('Consent', {
  description:
    "An entry of a prospect's consent history: a consent, or (with `revokedAt`) a revocation of the consents of its scope captured before it. Entries are never changed; a change appends one.",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Its id (`cns_…`).' }),
    channel: t.exposeString('channel', { description: 'The channel consented to: `voice`.' }),
    scope: t.exposeString('scope', {
      description: 'What the person agreed to be called about ("renewals"): a batch\'s `consentScope` matches it.',
    }),
    source: t.exposeString('source', {
      description: 'Where it was given (`web_form`, `call`, `import`, …); `api` or `call_record` for a revocation.',
    }),
    capturedAt: t.expose('capturedAt', { type: 'DateTime', description: 'When the person gave (or withdrew) it.' }),
    evidence: t.exposeString('evidence', {
      nullable: true,
      description: 'What shows it: text or an https address; null once the person was erased.',
    }),
    expiresAt: t.expose('expiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it lapses; null: never.',
    }),
    revokedAt: t.expose('revokedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Set on a revocation entry: consents of its scope captured before this instant are revoked.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the entry was written.' }),
  }),
});

const ConsentAdd = typesFromSchema(consentAdd);
const ConsentRevoke = typesFromSchema(consentRevoke);

// Declared beside Consent, so that prospect.ts need not import this file (no import cycle).
builder.prismaObjectField(Prospect, 'consents', (t) =>
  t.field({
    type: [Consent],
    description:
      'Its consent history, newest entry first (the newest 1,000): consents, and revocations (`revokedAt` set). REST: `GET /prospects/{id}/consents`.',
    resolve: (prospect, _args, context) => consentsOf({ prisma: context.db }, prospect.id),
  }),
);

builder.mutationFields((t) => ({
  addConsent: t.field({
    type: Consent,
    description: "Adds a consent to a prospect's history (`POST /prospects/{prospect_id}/consents`).",
    args: {
      prospectId: t.arg.id({ required: true, description: 'The prospect (`prs_…`).' }),
      input: t.arg({ type: ConsentAdd.input(), required: true, description: 'The consent.' }),
    },
    resolve: (_root, args, context) =>
      addConsent(scopeOf(context), String(args.prospectId), ConsentAdd.parse(context, args.input)),
  }),
  revokeConsent: t.field({
    type: Prospect,
    description:
      "Revokes a prospect's consents of a scope from now on, by appending a revocation entry (none when the scope's newest entry is one already); runs already queued are held to it (`POST /prospects/{prospect_id}/consents/revoke`).",
    args: {
      prospectId: t.arg.id({ required: true, description: 'The prospect (`prs_…`).' }),
      input: t.arg({ type: ConsentRevoke.input(), required: true, description: 'The scope.' }),
    },
    resolve: (_root, args, context) =>
      revokeConsent(scopeOf(context), String(args.prospectId), ConsentRevoke.parse(context, args.input)),
  }),
}));
