// The documentation a newcomer walks: every relative link of README.md, SECURITY.md,
// BENCHMARKS.md, CHANGELOG.md and docs/*.md leads to a file of the repository, and
// a #fragment to a heading of that page (GitHub's anchors); every page of docs/ is
// linked from README.md, so none is out of reach.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

/** The Markdown files whose links are checked, relative to the repository's root. */
async function documentation(directory: string): Promise<string[]> {
  const pages = (await readdir(path.join(directory, 'docs'))).filter((name) => name.endsWith('.md'));
  return ['README.md', 'SECURITY.md', 'BENCHMARKS.md', 'CHANGELOG.md', ...pages.map((name) => `docs/${name}`)];
}

/** The text outside fenced code blocks (a `#` line in a shell block is no heading). */
function outsideFences(markdown: string): string {
  let fenced = false;
  const lines = markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
  return lines.join('\n');
}

/** The text outside code, fenced or inline, where a link is a link. */
const prose = (markdown: string) => outsideFences(markdown).replace(/``[\s\S]*?``|`[^`]*`/g, 'code');

/** The targets of inline links and images, `[text](target)`, and of reference definitions. */
function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^\s)>]+)>?(?:\s+"[^"]*")?\s*\)/g)];
  const definitions = [...text.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/gm)];
  return [...inline, ...definitions].map((match) => match[1] as string);
}

/** GitHub's anchor for each heading: the text lowercased, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of outsideFences(markdown).matchAll(/^#{1,6}[ \t]+(.*?)[ \t#]*$/gm)) {
    const slug = (heading as string)
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const repeats = seen.get(slug) ?? 0;
    seen.set(slug, repeats + 1);
    result.add(repeats === 0 ? slug : `${slug}-${repeats}`);
  }
  return result;
}

const external = /^[a-z][a-z\d+.-]*:/i;

/** Every link of `files` that leads nowhere, as "file: target (why)"; links to files are checked under `directory`. */
async function brokenLinks(directory: string, files: string[]): Promise<string[]> {
  const problems: string[] = [];
  for (const file of files) {
    const markdown = await readFile(path.join(directory, file), 'utf8');
    for (const target of linkTargets(markdown)) {
      if (external.test(target)) continue;
      const [pathPart = '', fragment] = target.split('#', 2);
      const resolved = pathPart === '' ? file : path.posix.join(path.posix.dirname(file), decodeURIComponent(pathPart));
      if (resolved.startsWith('../') || path.posix.isAbsolute(resolved)) {
        problems.push(`${file}: ${target} (outside the repository)`);
      } else if (!existsSync(path.join(directory, resolved))) {
        problems.push(`${file}: ${target} (no such file)`);
      } else if (fragment !== undefined && resolved.endsWith('.md')) {
        const headings = anchors(await readFile(path.join(directory, resolved), 'utf8'));
        if (!headings.has(decodeURIComponent(fragment))) problems.push(`${file}: ${target} (no such heading)`);
      }
    }
  }
  return problems;
}

/** The pages of docs/ that README.md links to. */
async function pagesLinkedFromReadme(directory: string): Promise<Set<string>> {
  const targets = linkTargets(await readFile(path.join(directory, 'README.md'), 'utf8'));
  const files = targets.filter((target) => !external.test(target)).map((target) => target.split('#')[0] as string);
  return new Set(files.filter((file) => file !== ''));
}

describe('the documentation', () => {
  it('links only to files and headings that exist', async () => {
    expect(await brokenLinks(root, await documentation(root))).toEqual([]);
  });

  it('links every page of docs/ from README.md', async () => {
    const linked = await pagesLinkedFromReadme(root);
    const pages = (await documentation(root)).filter((file) => file.startsWith('docs/'));
    expect(pages.length).toBeGreaterThan(0);
    expect(pages.filter((page) => !linked.has(page))).toEqual([]);
  });

  it('reports a missing file, a missing heading and a link out of the repository, and ignores code', async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'docs-links-'));
    try {
      await mkdir(path.join(directory, 'docs'));
      await writeFile(
        path.join(directory, 'README.md'),
        [
          '# Guide',
          '## Limits: `GRAPHQL_MAX_DEPTH` (12)',
          '## Limits: `GRAPHQL_MAX_DEPTH` (12)',
          'See [the page](docs/page.md#two-words), [the limits](#limits-graphql_max_depth-12-1),',
          '[a missing page](docs/missing.md), [a missing heading](docs/page.md#three),',
          '[the spec](../shared/spec/SPEC.md) and [the web](https://example.com/x.md).',
          '`[code](docs/nowhere.md)`',
          '```md',
          '[fenced](docs/nowhere.md)',
          '```',
        ].join('\n'),
      );
      await writeFile(
        path.join(directory, 'docs', 'page.md'),
        '# Page\n\n## Two words\n\n[back](../README.md#guide)\n',
      );
      expect(await brokenLinks(directory, ['README.md', 'docs/page.md'])).toEqual([
        'README.md: docs/missing.md (no such file)',
        'README.md: docs/page.md#three (no such heading)',
        'README.md: ../shared/spec/SPEC.md (outside the repository)',
      ]);
      expect(await pagesLinkedFromReadme(directory)).toEqual(
        new Set(['docs/page.md', 'docs/missing.md', '../shared/spec/SPEC.md']),
      );
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
