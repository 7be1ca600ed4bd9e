// The organization's settings (src/domain/organization-settings.ts).
import { z } from 'zod';
import { organizationSettingsUpdate } from '../../domain/organization-settings.ts';
import { wireNames } from '../../schema/json-schema-names.ts';
import { int } from '../resources/common.ts';
import { operationRoute } from '../route.ts';
import { wire } from '../wire.ts';

const SettingsUpdate = wireNames(organizationSettingsUpdate);
const selection = 'maxConcurrentCalls';
const settingsSchema = z.strictObject({ max_concurrent_calls: int().nullable() }).meta({ id: 'OrganizationSettings' });

export const organizationSettingsRoutes = [
  operationRoute({
    method: 'GET',
    path: '/settings',
    endpoint: null,
    summary: "The organization's settings",
    operation: `query { organization { settings { ${selection} } } }`,
    variables: () => ({}),
    respond: (data) => wire(data.organization.settings),
    response: settingsSchema,
  }),
  operationRoute({
    method: 'PATCH',
    path: '/settings',
    endpoint: null,
    summary: "Change the organization's settings (members absent stay, null clears one)",
    operation: `mutation($input: OrganizationSettingsUpdateInput!) { updateOrganizationSettings(input: $input) { ${selection} } }`,
    body: organizationSettingsUpdate,
    variables: ({ body }) => ({ input: SettingsUpdate.toInput(body) }),
    respond: (data) => wire(data.updateOrganizationSettings),
    response: settingsSchema,
  }),
];
