// The REST route table: every SPEC.md endpoint and DECISIONS.md extension.
import type { Route } from '../route.ts';
import { prospectRoutes } from './prospects.ts';
import { workflowRoutes } from './workflows.ts';

export const routes: Route[] = [...workflowRoutes, ...prospectRoutes];
