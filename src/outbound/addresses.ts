// Which addresses a request made on a tenant's behalf may reach: none inside
// the network the service runs in. Loopback, private, link-local, shared and
// metadata addresses (169.254.169.254, fd00:ec2::254, 100.100.100.200 …) are
// refused, in every spelling: the URL parser has already turned `0x7f.1`,
// `2130706433` and `127.1` into 127.0.0.1, and IPv4 addresses inside IPv6
// ones (`::ffff:127.0.0.1`, `::127.0.0.1`, NAT64) are checked as IPv4.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** Every address a host name resolves to. */
export type Resolve = (host: string) => Promise<LookupAddress[]>;

/** The system resolver, as connections use it (`/etc/hosts`, then DNS). */
export const systemResolve: Resolve = (host) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

const forbiddenV4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network": 0.0.0.0 reaches the host itself
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
  forbiddenV4.addSubnet(network, prefix, 'ipv4');
}
const forbiddenV6 = new BlockList();
for (const [network, prefix] of [
  ['::', 127], // unspecified and loopback
  ['fc00::', 7], // unique local (AWS's metadata fd00:ec2::254)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  forbiddenV6.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address an IPv6 one carries in its last 32 bits: mapped, compatible or NAT64 (64:ff9b::/96). */
function embeddedIPv4(address: string): string | null {
  const match = /^(?:::ffff:|::|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!match) return null;
  if (match[1]) return match[1];
  const high = Number.parseInt(match[2]!, 16);
  const low = Number.parseInt(match[3]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Whether an IP address lies outside every range a tenant's request may never reach. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !forbiddenV4.check(address, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedIPv4(address.toLowerCase());
  if (v4) return isPublicAddress(v4);
  return !forbiddenV6.check(address, 'ipv6');
}

/**
 * Why a request was not sent. Its message is safe to show the tenant: it names
 * the host it was given, never what that resolved to, and it is the same
 * whatever listens (or not) behind a refused address, so refusals cannot be
 * used to map the service's own network.
 */
export class ForbiddenAddressError extends Error {
  constructor(host: string) {
    super(forbiddenReason(host));
    this.name = 'ForbiddenAddressError';
  }
}

/** The one reason given for any refused address, whatever listens there. */
export const forbiddenReason = (host: string) => `refused: ${host} is not a public address`;

/** The host of a URL as a resolver or `isIP` reads it (IPv6 literals without brackets). */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * A lookup for connections that fails for a name with any non-public address.
 * Given to `http.request` as `lookup`, it checks exactly the addresses the
 * socket then connects to, so a name that was public when it was saved and
 * resolves to 127.0.0.1 now (DNS rebinding) is refused here.
 */
export function publicLookup(resolve: Resolve): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (found) => {
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const addresses = family ? found.filter((entry) => entry.family === family) : found;
        if (addresses.length === 0 || !addresses.every((entry) => isPublicAddress(entry.address)))
          return callback(new ForbiddenAddressError(hostname), '', 0);
        if (options.all)
          return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
        callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
