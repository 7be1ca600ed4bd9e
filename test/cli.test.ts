import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../src/auth/authenticate.ts';
import { openDatabase } from '../src/db/database.ts';
import { defaultMigrationsDir } from '../src/db/migrator.ts';
import { runCli } from './support/processes.ts';
import { createTestStorage, type TestStorage } from './support/storage.ts';

describe('the operator CLI', () => {
  let storage: TestStorage;
  beforeAll(async () => {
    storage = await createTestStorage({ empty: true });
  });
  afterAll(() => storage.dispose());

  const cli = (...args: string[]) => runCli(args, storage.env);

  it('migrates, creates an organization, issues and revokes keys, printing only JSON', {
    timeout: 180_000,
  }, async () => {
    const migrated = await cli('migrate');
    expect(migrated.code).toBe(0);
    const committed = readdirSync(defaultMigrationsDir)
      .filter((name) => /^\d{14}_/.test(name))
      .sort();
    expect(committed[0]).toMatch(/^\d{14}_init$/);
    expect(JSON.parse(migrated.stdout)).toEqual({ applied: committed });
    expect(JSON.parse((await cli('migrate')).stdout)).toEqual({ applied: [] });

    const created = await cli('orgs', 'create', '--name', 'Acme');
    expect(created.code).toBe(0);
    const org = JSON.parse(created.stdout);
    expect(Object.keys(org).sort()).toEqual(['api_key', 'organization_id']);
    expect(org.organization_id).toMatch(/^org_[0-9a-f]{32}$/);
    expect(org.api_key).toMatch(/^gwk_[A-Za-z0-9_-]{43}$/);

    const issued = await cli('keys', 'create', '--org', org.organization_id);
    expect(issued.code).toBe(0);
    const { api_key: second } = JSON.parse(issued.stdout);
    expect(second).not.toBe(org.api_key);

    const revoked = await cli('keys', 'revoke', '--key', second);
    expect(JSON.parse(revoked.stdout)).toEqual({ revoked: 1 });
    expect(JSON.parse((await cli('keys', 'revoke', '--key', second)).stdout)).toEqual({ revoked: 0 });

    const third = JSON.parse((await cli('keys', 'create', '--org', org.organization_id)).stdout).api_key;
    const rotated = await cli('keys', 'rotate', '--key', third);
    expect(rotated.code).toBe(0);
    const { api_key: replacement } = JSON.parse(rotated.stdout);
    expect(replacement).toMatch(/^gwk_/);
    const again = await cli('keys', 'rotate', '--key', third);
    expect(again).toMatchObject({ code: 1, stdout: '' });

    const db = await openDatabase(storage.storage);
    try {
      // Each write is in the audit trail, as the CLI's (no key), the second revocation (nothing revoked) not.
      const trail = await db.prisma.auditEvent.findMany({
        where: { organizationId: org.organization_id },
        orderBy: [{ at: 'asc' }, { id: 'asc' }],
      });
      expect(trail.map((event) => [event.operation, event.resourceType, event.keyId, event.userAgent])).toEqual([
        ['createApiKey', 'ApiKey', null, 'gateway cli'],
        ['revokeApiKey', 'ApiKey', null, 'gateway cli'],
        ['createApiKey', 'ApiKey', null, 'gateway cli'],
        ['rotateApiKey', 'ApiKey', null, 'gateway cli'],
      ]);
      expect(await authenticate(db, third)).toBeNull();
      expect(await authenticate(db, replacement)).toMatchObject({ organizationId: org.organization_id });
      expect(await authenticate(db, org.api_key)).toMatchObject({ organizationId: org.organization_id });
      expect(await authenticate(db, second)).toBeNull();
      // Only hashes are stored.
      const stored = await db.prisma.apiKey.findMany();
      expect(JSON.stringify(stored)).not.toContain(org.api_key);
    } finally {
      await db.close();
    }

    // Scopes at creation; rotation keeps them, and a grace period keeps the old key working meanwhile.
    const scoped = await cli('keys', 'create', '--org', org.organization_id, '--scopes', 'read,calls:report');
    expect(scoped.code).toBe(0);
    const worker = JSON.parse(scoped.stdout);
    expect(worker).toMatchObject({ scopes: ['read', 'calls:report'], expires_at: null });
    const graced = await cli('keys', 'rotate', '--key', worker.api_key, '--grace-seconds', '600');
    expect(graced.code).toBe(0);
    expect(JSON.parse(graced.stdout).scopes).toEqual(['read', 'calls:report']);
    const refused = await cli('keys', 'create', '--org', org.organization_id, '--scopes', 'read,agents:delete');
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toContain('scopes.1');
    const tooLong = await cli('keys', 'rotate', '--key', worker.api_key, '--grace-seconds', '999999');
    expect(tooLong).toMatchObject({ code: 1, stdout: '' });
    const after = await openDatabase(storage.storage);
    try {
      expect(await authenticate(after, worker.api_key)).toMatchObject({ scopes: ['read', 'calls:report'] });
      expect(await authenticate(after, JSON.parse(graced.stdout).api_key)).toMatchObject({
        scopes: ['read', 'calls:report'],
      });
    } finally {
      await after.close();
    }
  });

  it('reports failures on stderr with a non-zero exit and nothing on stdout', async () => {
    const unknownOrg = await cli('keys', 'create', '--org', 'org_missing');
    expect(unknownOrg).toMatchObject({ code: 1, stdout: '' });
    expect(unknownOrg.stderr).toContain('organization not found');

    const missingName = await cli('orgs', 'create');
    expect(missingName).toMatchObject({ code: 2, stdout: '' });
    expect(missingName.stderr).toContain('--name is required');

    const unknown = await cli('frobnicate');
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toContain('unknown command');

    const badOption = await cli('orgs', 'create', '--name', 'X', '--colour', 'red');
    expect(badOption).toMatchObject({ code: 2, stdout: '' });
  });

  it('refuses `keys create` beyond API_KEYS_PER_ORGANIZATION unrevoked keys, and issues again once one is revoked', async () => {
    const capped = (...args: string[]) => runCli(args, { ...storage.env, API_KEYS_PER_ORGANIZATION: '2' });
    const org = JSON.parse((await capped('orgs', 'create', '--name', 'Capped')).stdout);
    const second = await capped('keys', 'create', '--org', org.organization_id);
    expect(second.code).toBe(0);
    const refused = await capped('keys', 'create', '--org', org.organization_id);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toContain(
      'the organization has 2 active API keys, the most it may have (API_KEYS_PER_ORGANIZATION): revoke one before issuing another',
    );
    expect(JSON.parse((await capped('keys', 'revoke', '--key', org.api_key)).stdout)).toEqual({ revoked: 1 });
    expect((await capped('keys', 'create', '--org', org.organization_id)).code).toBe(0);
  });

  it('answers --help for every command', async () => {
    for (const command of [
      [],
      ['migrate'],
      ['orgs', 'create'],
      ['keys', 'create'],
      ['keys', 'rotate'],
      ['keys', 'revoke'],
    ]) {
      const help = await cli(...command, '--help');
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^usage: gateway/);
    }
  });
});
