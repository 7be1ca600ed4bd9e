// Every domain type registers itself on the builder when its file is imported.
import { GraphQLLiveDirective } from '@n1ru4l/graphql-live-query';
import { type GraphQLSchema, specifiedDirectives } from 'graphql';
import { SUBGRAPH_FIELD_SCOPES } from '../key-scopes.ts';
import { auditMutations } from './audited-mutations.ts';
import { builder } from './builder.ts';
import { enforceKeyScopes } from './key-scope-checks.ts';
import './organization.ts';
import './api-key.ts';
import './audit-event.ts';
import './workflow.ts';
import './batch.ts';
import './run.ts';
import './call-report.ts';
import './call-record.ts';
import './record-breakdown.ts';
import './prospect.ts';
import './prospect-import.ts';
import './consent.ts';
import './do-not-call.ts';
import './telephony.ts';
import './insight.ts';
import './agent.ts';
import './evaluation.ts';
import './integration.ts';
import './signing-secret.ts';
import './webhook.ts';

// `@live` marks a live query (src/graphql/use-live-queries.ts); given directives replace graphql-js's own, so those are listed too.
const directives = [...specifiedDirectives, GraphQLLiveDirective];

// Every field's scope checked in one place (src/key-scopes.ts, key-scope-checks.ts), before a
// mutation's transaction opens; every mutation audited (audited-mutations.ts).
export const schema = enforceKeyScopes(auditMutations(builder.toSchema({ sortSchema: true, directives })));

let subgraph: GraphQLSchema | undefined;
/**
 * The same schema as an Apollo Federation 2 subgraph (FEDERATION=on): with
 * `_entities` and `_service` (federation.ts). Built the first time it is asked for.
 */
export const subgraphSchema = (): GraphQLSchema =>
  (subgraph ??= enforceKeyScopes(
    auditMutations(builder.toSubGraphSchema({ sortSchema: true, directives })),
    SUBGRAPH_FIELD_SCOPES,
  ));
