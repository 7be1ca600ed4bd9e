// Every domain type registers itself on the builder when its file is imported.
import { GraphQLLiveDirective } from '@n1ru4l/graphql-live-query';
import { type GraphQLSchema, specifiedDirectives } from 'graphql';
import { builder } from './builder.ts';
import './organization.ts';
import './workflow.ts';
import './batch.ts';
import './run.ts';
import './call-report.ts';
import './prospect.ts';
import './prospect-import.ts';
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

export const schema = builder.toSchema({ sortSchema: true, directives });

let subgraph: GraphQLSchema | undefined;
/**
 * The same schema as an Apollo Federation 2 subgraph (FEDERATION=on): with
 * `_entities` and `_service` (federation.ts). Built the first time it is asked for.
 */
export const subgraphSchema = (): GraphQLSchema =>
  (subgraph ??= builder.toSubGraphSchema({ sortSchema: true, directives }));
