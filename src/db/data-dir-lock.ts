// Keeps a second process from opening an embedded data directory that is in
// use: PGlite is single-process, and two writers would corrupt it.
//
// On Linux the lock is a listening socket in the abstract namespace, named
// after the directory's real path: the kernel gives it to one process at a time
// and frees it the moment that process dies, so a crash never leaves a stale
// lock behind and there is no window in which two processes both win. A pid
// file beside the data tells the loser who holds the directory. Elsewhere the
// pid file itself is the lock (exclusive create; a dead holder's file is taken over).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, realpathSync, unlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export class DataDirInUseError extends Error {
  constructor(dataDir: string, holder: string) {
    super(
      `the data directory ${dataDir} is in use by another gateway process (${holder}); ` +
        'stop it, or set DATA_DIR to another directory',
    );
    this.name = 'DataDirInUseError';
  }
}

export interface DataDirLock {
  release(): Promise<void>;
}

const PID_FILE = 'gateway.pid';

function readHolder(dataDir: string): string {
  try {
    return `pid ${readFileSync(path.join(dataDir, PID_FILE), 'utf8').trim()}`;
  } catch {
    return 'pid unknown';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function lockWithAbstractSocket(dataDir: string): Promise<DataDirLock> {
  const digest = createHash('sha256').update(dataDir).digest('hex').slice(0, 40);
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new DataDirInUseError(dataDir, readHolder(dataDir)) : error),
    );
    server.listen(`\0agent-gateway-data-${digest}`, resolve);
  });
  // The socket must not keep the process alive on its own.
  server.unref();
  writeFileSync(path.join(dataDir, PID_FILE), `${process.pid}\n`);
  return {
    async release() {
      try {
        unlinkSync(path.join(dataDir, PID_FILE));
      } catch {
        // already gone
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function lockWithPidFile(dataDir: string): DataDirLock {
  const file = path.join(dataDir, PID_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      return {
        async release() {
          unlinkSync(file);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number.parseInt(readFileSync(file, 'utf8'), 10);
      if (Number.isInteger(holder) && isAlive(holder)) throw new DataDirInUseError(dataDir, `pid ${holder}`);
      unlinkSync(file);
    }
  }
  throw new DataDirInUseError(dataDir, readHolder(dataDir));
}

export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  mkdirSync(dataDir, { recursive: true });
  const canonical = realpathSync(dataDir);
  return process.platform === 'linux' ? lockWithAbstractSocket(canonical) : lockWithPidFile(canonical);
}
