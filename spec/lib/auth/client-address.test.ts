import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { throttledAddress } from '../../../lib/auth/throttle/client-address.js';
import { LoginThrottle, resolveLimits } from '../../../lib/auth/throttle/login-throttle.js';
import { MemoryThrottleStore } from '../../../lib/auth/throttle/memory-store.js';
import { ApiError } from '../../../lib/errors.js';

describe('throttledAddress', () => {
  it('keeps an IPv4 address as it is', () => {
    assert.equal(throttledAddress('203.0.113.9'), '203.0.113.9');
  });

  it('counts an IPv6 address with the rest of its /64, however it is written', () => {
    const block = '2001:db8:0:1::/64';
    for (const address of [
      '2001:db8:0:1::1',
      '2001:DB8:0:1:ffff:ffff:ffff:ffff',
      '2001:0db8:0000:0001:0000:0000:0000:0002',
      '2001:db8::1:0:0:0:3',
      '2001:db8:0:1::9%eth0',
      '2001:db8:0:1::192.0.2.1',
    ])
      assert.equal(throttledAddress(address), block, address);
    assert.equal(throttledAddress('2001:db8:0:2::1'), '2001:db8:0:2::/64');
    assert.equal(throttledAddress('::1'), '0:0:0:0::/64');
    assert.equal(throttledAddress('fe80::1%eth0'), 'fe80:0:0:0::/64');
  });

  it('counts an IPv4 peer of a dual-stack socket as the IPv4 address', () => {
    assert.equal(throttledAddress('::ffff:198.51.100.7'), '198.51.100.7');
    assert.equal(throttledAddress('::FFFF:c633:6407'), '198.51.100.7');
    // An IPv4 client of an IPv6-only server, through a NAT64 gateway's well-known prefix.
    assert.equal(throttledAddress('64:ff9b::198.51.100.7'), '198.51.100.7');
    assert.equal(throttledAddress('64:ff9b::c633:6408'), '198.51.100.8');
  });

  it('leaves what is no address as it is (a test client, an unknown socket)', () => {
    assert.equal(throttledAddress(''), '');
    assert.equal(throttledAddress('not an address'), 'not an address');
  });
});

describe('LoginThrottle and IPv6 clients', () => {
  it('counts one /64 as one client, per address and per (username, address)', async () => {
    const throttle = new LoginThrottle(
      new MemoryThrottleStore(),
      resolveLimits({ username: { attempts: 2, window: 60 }, address: { attempts: 3, window: 60 } }),
    );
    await throttle.attempt('alice', '2001:db8:5:5::1');
    await throttle.attempt('alice', '2001:db8:5:5::2');
    await assert.rejects(throttle.attempt('alice', '2001:db8:5:5:abcd::3'), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      return error.status === 429;
    });
    // The address counter now holds three attempts of that block: a fourth name is refused too.
    await assert.rejects(throttle.attempt('bob', '2001:db8:5:5::4'), ApiError);
    await throttle.attempt('bob', '2001:db8:5:6::4');
  });

  it('takes a success back from the block it counted', async () => {
    const throttle = new LoginThrottle(
      new MemoryThrottleStore(),
      resolveLimits({ address: { attempts: 2, window: 60 } }),
    );
    await throttle.attempt('alice', '2001:db8:9:9::1');
    await throttle.succeeded('alice', '2001:db8:9:9::2');
    await throttle.attempt('carol', '2001:db8:9:9::3');
    await throttle.attempt('dave', '2001:db8:9:9::4');
    await assert.rejects(throttle.attempt('erin', '2001:db8:9:9::5'), ApiError);
  });

  it('counts registrations per /64', async () => {
    const throttle = new LoginThrottle(
      new MemoryThrottleStore(),
      resolveLimits({ register: { attempts: 1, window: 60 } }),
    );
    await throttle.registration('2001:db8:1:1::1');
    await assert.rejects(throttle.registration('2001:db8:1:1::2'), ApiError);
    await throttle.registration('::ffff:192.0.2.1');
    await assert.rejects(throttle.registration('192.0.2.1'), ApiError);
  });
});
