// Where requests made on a tenant's behalf may go, checked as their URL is
// saved: a webhook endpoint's `url`, an agent's `precall_webhook.url`, a
// workflow's webhook steps' `url`. The scheme is http(s) (a webhook endpoint:
// https only, unless WEBHOOK_ALLOW_HTTP=on), no credentials in the URL, and,
// unless WEBHOOK_ALLOW_PRIVATE=on, no host that is or resolves to a loopback,
// private, link-local or metadata address. The same addresses are checked
// again on every request (src/outbound/request.ts), on the addresses the
// connection uses: a name that rebinds to 127.0.0.1 after it was saved is
// refused then.
import { isIP } from 'node:net';
import { hostOf, isPublicAddress, systemResolve } from '../outbound/addresses.ts';
import type { OutboundPolicy } from '../outbound/request.ts';
import { badInput, type FieldProblem } from './errors.ts';

export interface UrlRules {
  /** The member named in the 400 (`url`, `precall_webhook.url`, `definition.steps.0.url`). */
  path: string;
  /** Only https, unless the policy allows http (webhook endpoints); else http or https. */
  httpsOnly: boolean;
  /**
   * A host that does not resolve now is refused (webhook endpoints, delivered
   * from the moment they exist); else it is saved and checked when it is used.
   */
  mustResolve: boolean;
}

/** What is wrong with a URL a tenant's request will go to, as 400 problems (none: it may be saved). */
export async function outboundUrlProblems(text: string, policy: OutboundPolicy, rules: UrlRules) {
  const problem = (rule: string, message: string): FieldProblem[] => [{ path: rules.path, rule, message }];
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return problem('format url', 'is not a URL');
  }
  const https = rules.httpsOnly && !policy.allowHttp;
  if (!(https ? ['https:'] : ['https:', 'http:']).includes(url.protocol))
    return problem(https ? 'https' : 'http', `must be an ${https ? 'https' : 'http or https'} URL`);
  if (url.username || url.password) return problem('no credentials', 'must not carry a user name or password');
  if (policy.allowPrivate) return [];
  const host = hostOf(url);
  const addresses = isIP(host)
    ? [host]
    : await (policy.resolve ?? systemResolve)(host).then(
        (found) => found.map((entry) => entry.address),
        () => [],
      );
  if (addresses.length === 0)
    return rules.mustResolve ? problem('resolves', `its host ${url.hostname} does not resolve`) : [];
  if (!addresses.every(isPublicAddress))
    return problem(
      'public address',
      `its host ${url.hostname} is or resolves to a loopback, private, link-local or metadata address`,
    );
  return [];
}

/** Throws the domain's 400 when the URL may not be saved (`outboundUrlProblems`). */
export async function checkOutboundUrl(text: string, policy: OutboundPolicy, rules: UrlRules): Promise<void> {
  const problems = await outboundUrlProblems(text, policy, rules);
  if (problems.length > 0) throw badInput(problems);
}
