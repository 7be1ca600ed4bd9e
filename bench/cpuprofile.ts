// Summarizes a V8 .cpuprofile (node --cpu-prof): self time per function and
// per package (node_modules/<package>, the gateway's own src/ files, Node's
// internals, the garbage collector), idle time left out.
import { readFileSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface ProfileSummary {
  /** Busy time sampled (idle left out), ms. */
  busyMs: number;
  functions: { name: string; where: string; area: string; selfMs: number; share: number }[];
  areas: { area: string; selfMs: number; share: number }[];
}

function areaOf(url: string, functionName: string): string {
  if (!url) {
    if (functionName === '(garbage collector)') return 'garbage collector';
    if (functionName === '(program)') return 'V8/native (program)';
    return functionName || 'native';
  }
  const clean = url.replace(/^file:\/\//, '');
  const inModules = clean.lastIndexOf('/node_modules/');
  if (inModules >= 0) {
    const rest = clean.slice(inModules + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (clean.startsWith('node:')) return 'node internals';
  const src = clean.indexOf('/src/');
  if (src >= 0) return `gateway ${clean.slice(src + 1)}`;
  return path.basename(clean);
}

function whereOf(url: string, line: number): string {
  if (!url) return '';
  const clean = url.replace(/^file:\/\//, '');
  const inModules = clean.lastIndexOf('/node_modules/');
  const short =
    inModules >= 0
      ? clean.slice(inModules + '/node_modules/'.length)
      : clean.includes('/src/')
        ? clean.slice(clean.indexOf('/src/') + 1)
        : clean;
  return `${short}:${line + 1}`;
}

/**
 * `skipMs`: samples taken in the profile's first `skipMs` (the process's
 * start, the warm-up) are left out; so are those after `untilMs`, if given.
 */
export function summarizeProfile(file: string, top = 15, skipMs = 0, untilMs = Infinity): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  // Self time per node from the samples and their time deltas (µs).
  const selfUs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let at = 0;
  for (let index = 0; index < samples.length; index++) {
    at += deltas[index] ?? 0;
    if (at < skipMs * 1000 || at > untilMs * 1000) continue;
    // A sample's time is the delta to the next sample.
    const duration = deltas[index + 1] ?? 0;
    selfUs.set(samples[index]!, (selfUs.get(samples[index]!) ?? 0) + duration);
  }
  const functions = new Map<string, { name: string; where: string; area: string; selfUs: number }>();
  const areas = new Map<string, number>();
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || functionName === '(root)') continue;
    busyUs += us;
    const name = functionName || '(anonymous)';
    const where = whereOf(url, lineNumber);
    const area = areaOf(url, functionName);
    const key = `${name}@${where}`;
    const entry = functions.get(key) ?? { name, where, area, selfUs: 0 };
    entry.selfUs += us;
    functions.set(key, entry);
    areas.set(area, (areas.get(area) ?? 0) + us);
  }
  const share = (us: number) => (busyUs > 0 ? us / busyUs : 0);
  return {
    busyMs: busyUs / 1000,
    functions: [...functions.values()]
      .sort((a, b) => b.selfUs - a.selfUs)
      .slice(0, top)
      .map((entry) => ({
        name: entry.name,
        where: entry.where,
        area: entry.area,
        selfMs: entry.selfUs / 1000,
        share: share(entry.selfUs),
      })),
    areas: [...areas.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([area, us]) => ({ area, selfMs: us / 1000, share: share(us) })),
  };
}

// `tsx bench/cpuprofile.ts <file.cpuprofile> [top] [skipMs]` prints the summary.
if (process.argv[1] && import.meta.filename === path.resolve(process.argv[1])) {
  const summary = summarizeProfile(process.argv[2]!, Number(process.argv[3] ?? 20), Number(process.argv[4] ?? 0));
  console.log(`busy ${summary.busyMs.toFixed(0)} ms`);
  for (const area of summary.areas) console.log(`${(area.share * 100).toFixed(1).padStart(5)}%  ${area.area}`);
  console.log('');
  for (const fn of summary.functions)
    console.log(`${(fn.share * 100).toFixed(1).padStart(5)}%  ${fn.name}  ${fn.where}`);
}
