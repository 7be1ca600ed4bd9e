// Where webhooks may go. An endpoint's URL is https (http only when
// WEBHOOK_ALLOW_HTTP=on) and must not lead into the network the service runs
// in: a name that resolves to a loopback, private, link-local, shared or
// metadata address (169.254.169.254, fd00:ec2::254, 100.100.100.200 …) is
// refused, unless WEBHOOK_ALLOW_PRIVATE=on. Every address a name resolves to
// is checked, at creation and again at each delivery, on the very addresses
// the connection then uses (`publicLookup`), so a name that is public when
// created and rebinds to 127.0.0.1 later is refused then.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { badInput } from './errors.ts';

export interface WebhookUrlPolicy {
  /** `http:` URLs allowed besides `https:` (WEBHOOK_ALLOW_HTTP). */
  allowHttp: boolean;
  /** Addresses inside private networks allowed (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate: boolean;
}

/** Address ranges a webhook never reaches (IPv4-mapped IPv6 addresses are checked as IPv4). */
const forbidden = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (carrier NAT; Alibaba's metadata service)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local (the cloud metadata services' 169.254.169.254)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
] as const) {
  forbidden.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 127], // unspecified and loopback
  ['64:ff9b::', 96], // NAT64: an IPv4 address behind a translator
  ['fc00::', 7], // unique local (AWS's metadata fd00:ec2::254)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  forbidden.addSubnet(network, prefix, 'ipv6');
}

/** Whether an IP address lies in a range webhooks never reach. */
function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return forbidden.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

export class ForbiddenAddress extends Error {}

const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** Every address `host` resolves to (the system resolver, as connections use it). */
function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    dnsLookup(host, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );
}

/**
 * A DNS lookup for connections that refuses a name with any address in a
 * forbidden range. Given to `http.request` as `lookup`, it checks exactly the
 * addresses the socket connects to.
 */
export const publicLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const refused = addresses.find((entry) => isPrivateAddress(entry.address));
    if (refused)
      return callback(new ForbiddenAddress(`${hostname} resolves to ${refused.address}, a private address`), '', 0);
    if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
    const [first] = addresses;
    if (!first) return callback(new ForbiddenAddress(`${hostname} resolves to no address`), '', 0);
    callback(null, first.address, first.family);
  });
};

/** Refuses a URL whose host is a forbidden IP literal (connections do no lookup for those). */
export function checkLiteralAddress(url: URL) {
  const host = hostOf(url);
  if (isIP(host) && isPrivateAddress(host)) throw new ForbiddenAddress(`${host} is a private address`);
}

/**
 * Checks an endpoint URL as it is created or changed: the scheme, and (unless
 * private addresses are allowed) every address its host resolves to. Throws
 * the domain's 400 naming `url`.
 */
export async function checkWebhookUrl(text: string, policy: WebhookUrlPolicy): Promise<void> {
  const refuse = (rule: string, message: string) => badInput([{ path: 'url', rule, message }]);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse('format url', 'is not a URL');
  }
  const schemes = policy.allowHttp ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol))
    throw refuse('https', `must be an ${policy.allowHttp ? 'http or https' : 'https'} URL`);
  if (url.username || url.password) throw refuse('no credentials', 'must not carry a user name or password');
  if (policy.allowPrivate) return;
  const host = hostOf(url);
  const addresses = isIP(host)
    ? [host]
    : await resolveAll(host).then(
        (found) => found.map((entry) => entry.address),
        () => [],
      );
  if (addresses.length === 0) throw refuse('resolves', `its host ${host} does not resolve`);
  const refused = addresses.find(isPrivateAddress);
  if (refused)
    throw refuse(
      'public address',
      `its host ${host} resolves to ${refused}, a loopback, private, link-local or metadata address`,
    );
}
