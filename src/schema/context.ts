import type { Database } from '../db/database.ts';
import type { Viewer } from '../domain/organizations.ts';

/** What every resolver sees: the storage and the organization the API key belongs to. */
export interface GraphQLContext {
  db: Database;
  viewer: Viewer;
}
