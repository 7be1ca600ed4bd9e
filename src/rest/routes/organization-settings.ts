// The organization's settings (src/domain/organization-settings.ts).
import { organizationSettingsUpdate } from '../../domain/organization-settings.ts';
import { organizationSettings } from '../../records/organizations.ts';
import { wireNames } from '../../schema/json-schema-names.ts';
import { operationRoute } from '../route.ts';

const SettingsUpdate = wireNames(organizationSettingsUpdate);

export const organizationSettingsRoutes = [
  operationRoute({
    method: 'GET',
    path: '/settings',
    endpoint: null,
    summary: "The organization's settings",
    operation: `query { organization { settings { ${organizationSettings.selection} } } }`,
    variables: () => ({}),
    respond: (data) => organizationSettings.present(data.organization.settings),
    response: organizationSettings.schema,
  }),
  operationRoute({
    method: 'PATCH',
    path: '/settings',
    endpoint: null,
    summary: "Change the organization's settings (members absent stay, null clears one)",
    operation: `mutation($input: OrganizationSettingsUpdateInput!) { updateOrganizationSettings(input: $input) { ${organizationSettings.selection} } }`,
    body: organizationSettingsUpdate,
    variables: ({ body }) => ({ input: SettingsUpdate.toInput(body) }),
    respond: (data) => organizationSettings.present(data.updateOrganizationSettings),
    response: organizationSettings.schema,
  }),
];
