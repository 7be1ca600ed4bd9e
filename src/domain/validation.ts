// The conversion of zod's failures into the domain's error: each offending
// member's path and rule; and the values no database can store.
import type { z } from 'zod';
import { badInput, type FieldProblem } from './errors.ts';

function ruleOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'too_small':
      return `minimum ${issue.minimum}`;
    case 'too_big':
      return `maximum ${issue.maximum}`;
    case 'invalid_type':
      return `type ${issue.expected}`;
    case 'invalid_value':
      return 'enum';
    case 'unrecognized_keys':
      return 'unknown member';
    case 'invalid_format':
      return `format ${issue.format}`;
    default:
      return issue.code;
  }
}

export function problemsOf(error: z.ZodError, prefix: (string | number)[] = []): FieldProblem[] {
  return issueProblems(error.issues, prefix);
}

function issueProblems(issues: readonly z.core.$ZodIssue[], prefix: (string | number)[]): FieldProblem[] {
  return issues.flatMap((issue): FieldProblem[] => {
    const path = [...prefix, ...issue.path].map(String);
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      // The alternative that came closest explains the failure best.
      const closest = [...issue.errors].sort((a, b) => a.length - b.length)[0]!;
      return issueProblems(closest, [...prefix, ...issue.path.map(String)]);
    }
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        path: [...path, key].join('.'),
        rule: 'unknown member',
        message: 'is not a known member',
      }));
    }
    if ((issue.code === 'invalid_type' || issue.code === 'invalid_value') && issue.input === undefined) {
      return [{ path: path.join('.'), rule: 'required', message: 'is required' }];
    }
    return [{ path: path.join('.'), rule: ruleOf(issue), message: issue.message.replace(/^Invalid input: /, '') }];
  });
}

/** Parses `input` with `schema` or throws the domain's 400 naming each offending member. */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  input: unknown,
  prefix: (string | number)[] = [],
): z.output<S> {
  // reportInput lets problemsOf tell a missing member from a mistyped one; inputs never reach the error detail.
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) throw badInput(problemsOf(result.error, prefix));
  return result.data;
}

/**
 * The members of `value` no database could store as given: strings with
 * U+0000 (PostgreSQL keeps NUL in neither text nor jsonb) and numbers JSON
 * cannot carry (1e999 parses as Infinity). They are refused as bad input up
 * front instead of failing in, or being mangled by, the database.
 */
export function unstorableMembers(value: unknown, path: string[] = []): FieldProblem[] {
  const problems: FieldProblem[] = [];
  // One path, grown and shrunk as the walk goes: a body of clean members (every request) allocates nothing.
  const at = [...path];
  const found = (rule: string, message: string) => problems.push({ path: at.join('.'), rule, message });
  const walk = (member: unknown) => {
    if (typeof member === 'string') {
      if (member.includes('\u0000')) found('no NUL', 'must not contain the NUL character (U+0000)');
    } else if (typeof member === 'number') {
      if (!Number.isFinite(member)) found('finite', 'must be a finite number');
    } else if (Array.isArray(member)) {
      for (let index = 0; index < member.length; index++) {
        at.push(String(index));
        walk(member[index]);
        at.pop();
      }
    } else if (member && typeof member === 'object') {
      for (const key in member) {
        if (!Object.hasOwn(member, key)) continue;
        at.push(key);
        walk(key);
        walk((member as Record<string, unknown>)[key]);
        at.pop();
      }
    }
  };
  walk(value);
  return problems;
}

/** Throws the domain's 400 naming each member of `value` that cannot be stored. */
export function refuseUnstorable(value: unknown, prefix: string[] = []): void {
  const problems = unstorableMembers(value, prefix);
  if (problems.length > 0) throw badInput(problems);
}
