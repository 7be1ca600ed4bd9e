#!/usr/bin/env node
// `npm ci` wants a package-lock.json entry for every optional dependency, the
// other platforms' native binaries included. The registry mirror this project
// is built with lacks those of Biome and oxc-parser (knip's), so `npm install`
// leaves them out of the lock and `npm ci` then refuses it. This adds the
// missing entries (version, os, cpu, libc: as npm writes them); on a platform
// they do not match, npm skips them without fetching. Run after `npm install`
// changes the lock: `node scripts/lock-platform-binaries.js`.
import { readFileSync, writeFileSync } from 'node:fs';

const lockFile = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
const packages = lock.packages;
const cpus = ['x64', 'arm64', 'arm', 'ia32', 'ppc64', 'riscv64', 's390x'];
let added = 0;
for (const entry of Object.values(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    if (packages[`node_modules/${name}`] || !/^@(biomejs|oxc-parser)\//.test(name)) continue;
    // @biomejs/cli-linux-x64-musl, @oxc-parser/binding-win32-arm64-msvc: the platform in the name.
    const [os, cpu, abi = ''] = name
      .split('/')[1]
      .replace(/^(cli|binding)-/, '')
      .split('-');
    if (!cpus.includes(cpu)) throw new Error(`${name}: no CPU in its name`);
    packages[`node_modules/${name}`] = {
      version,
      dev: true,
      optional: true,
      os: [os],
      cpu: [cpu],
      ...(os === 'linux' ? { libc: [abi.includes('musl') ? 'musl' : 'glibc'] } : {}),
    };
    added += 1;
  }
}
const [root, ...rest] = Object.entries(packages);
lock.packages = Object.fromEntries([root, ...rest.sort(([a], [b]) => a.localeCompare(b))]);
writeFileSync(lockFile, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added} platform entries added`);
