import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataDirInUseError } from '../src/db/data-dir-lock.ts';
import { openDatabase } from '../src/db/database.ts';
import { freePort, runCli, startServerProcess } from './support/processes.ts';

// Only the embedded database has a data directory; these run in both CI passes.
describe('an embedded data directory', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'gateway-lock-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('is created when missing, and what is written there is found again on the next open', async () => {
    const nested = path.join(dataDir, 'does', 'not', 'exist');
    const db = await openDatabase({ kind: 'embedded', dataDir: nested });
    try {
      await db.sql.exec(`CREATE TABLE kept (note text); INSERT INTO kept VALUES ('written before close')`);
    } finally {
      await db.close();
    }
    expect((await stat(nested)).isDirectory()).toBe(true);
    const again = await openDatabase({ kind: 'embedded', dataDir: nested });
    try {
      expect((await again.sql.query('SELECT note FROM kept')).rows).toEqual([{ note: 'written before close' }]);
    } finally {
      await again.close();
    }
  });

  it('cannot be opened twice in one process', async () => {
    const db = await openDatabase({ kind: 'embedded', dataDir });
    try {
      await expect(openDatabase({ kind: 'embedded', dataDir })).rejects.toBeInstanceOf(DataDirInUseError);
    } finally {
      await db.close();
    }
  });

  it('refuses a second process with a clear error, and the first keeps its data intact', async () => {
    const env = { DATA_DIR: dataDir, DATABASE_URL: '' };
    const created = await runCli(['orgs', 'create', '--name', 'First'], env);
    expect(created.code).toBe(0);
    const server = await startServerProcess(env, await freePort());
    try {
      const second = await runCli(['orgs', 'create', '--name', 'Second'], env);
      expect(second.code).toBe(1);
      expect(second.stdout).toBe('');
      expect(second.stderr).toMatch(/data directory .* is in use by another gateway process \(pid \d+\)/);
    } finally {
      expect(await server.stop('SIGTERM')).toBe(0);
    }
    const db = await openDatabase({ kind: 'embedded', dataDir });
    try {
      expect((await db.prisma.organization.findMany()).map((org) => org.name)).toEqual(['First']);
    } finally {
      await db.close();
    }
  });

  it('is free again at once after its holder is killed, with the data intact', async () => {
    const env = { DATA_DIR: dataDir, DATABASE_URL: '' };
    expect((await runCli(['orgs', 'create', '--name', 'Survivor'], env)).code).toBe(0);
    const server = await startServerProcess(env, await freePort());
    await server.stop('SIGKILL');
    const after = await runCli(['orgs', 'create', '--name', 'After crash'], env);
    expect(after.stderr).toBe('');
    expect(after.code).toBe(0);
    const db = await openDatabase({ kind: 'embedded', dataDir });
    try {
      const names = (await db.prisma.organization.findMany({ orderBy: { createdAt: 'asc' } })).map((org) => org.name);
      expect(names).toEqual(['Survivor', 'After crash']);
    } finally {
      await db.close();
    }
  });
});
