/**
 * The client address a throttle counts under. An IPv4 address counts alone; an IPv6 address counts
 * with the rest of its /64, the block a provider usually hands one customer (RFC 6177): whoever
 * holds one address of it can use all 2^64, so counting each address alone would let one client
 * make a fresh start with every guess. An IPv4 address written as IPv6 (`::ffff:192.0.2.1`, how a
 * dual-stack socket reports an IPv4 peer), or translated by a NAT64 gateway (`64:ff9b::192.0.2.1`),
 * counts as that IPv4 address.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** The eight 16-bit groups of an IPv6 address (zone index dropped), or undefined when it is not one. */
function groupsOf(address: string): number[] | undefined {
  const bare = address.split('%')[0] as string;
  if (!isIPv6(bare)) return undefined;
  let text = bare.toLowerCase();
  // A trailing dotted IPv4 part is two groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((group) => Number.parseInt(group, 16));
}

/** The key a throttle counts an address under: IPv4 as it is, IPv6 as its /64 (`2001:db8:0:1::/64`). */
export function throttledAddress(address: string): string {
  if (isIPv4(address)) return address;
  const groups = groupsOf(address);
  if (groups === undefined || groups.length !== 8) return address;
  // ::ffff:a.b.c.d, an IPv4 peer on a dual-stack socket; 64:ff9b::a.b.c.d, one a NAT64 gateway
  // translated (RFC 6052): every IPv4 client of an IPv6-only server would share one /64.
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  const translated = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0);
  if (mapped || translated) {
    const [high, low] = groups.slice(6) as [number, number];
    return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}
