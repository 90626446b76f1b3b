/**
 * The address classifier: the ranges of the tables, the IPv6 forms that carry
 * an IPv4 address, and properties over random addresses (fast-check).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { classifyAddress, type AddressClass } from './address-classes.ts';

function cls(address: string): AddressClass | undefined {
  return classifyAddress(address)?.class;
}

test('IPv4 ranges, at their edges', () => {
  const cases: [string, AddressClass][] = [
    ['0.0.0.0', 'unspecified'],
    ['0.0.0.1', 'reserved'],
    ['0.255.255.255', 'reserved'],
    ['1.0.0.0', 'public'],
    ['9.255.255.255', 'public'],
    ['10.0.0.0', 'private'],
    ['10.255.255.255', 'private'],
    ['11.0.0.0', 'public'],
    ['100.63.255.255', 'public'],
    ['100.64.0.0', 'private'],
    ['100.127.255.255', 'private'],
    ['100.100.100.200', 'metadata'],
    ['100.128.0.0', 'public'],
    ['126.255.255.255', 'public'],
    ['127.0.0.0', 'loopback'],
    ['127.255.255.255', 'loopback'],
    ['128.0.0.0', 'public'],
    ['169.253.255.255', 'public'],
    ['169.254.0.0', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.169.253', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['169.254.255.255', 'link_local'],
    ['169.255.0.0', 'public'],
    ['172.15.255.255', 'public'],
    ['172.16.0.0', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.0', 'public'],
    ['192.0.0.0', 'reserved'],
    ['192.0.0.192', 'metadata'],
    ['192.0.1.0', 'public'],
    ['192.0.2.255', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['192.167.255.255', 'public'],
    ['192.168.0.0', 'private'],
    ['192.168.255.255', 'private'],
    ['192.169.0.0', 'public'],
    ['198.17.255.255', 'public'],
    ['198.18.0.0', 'reserved'],
    ['198.19.255.255', 'reserved'],
    ['198.20.0.0', 'public'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['223.255.255.255', 'public'],
    ['224.0.0.0', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['240.0.0.0', 'reserved'],
    ['255.255.255.254', 'reserved'],
    ['255.255.255.255', 'broadcast'],
  ];
  for (const [address, expected] of cases) assert.equal(cls(address), expected, address);
});

test('IPv6 ranges and the forms that carry an IPv4 address', () => {
  const cases: [string, AddressClass][] = [
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::2', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:0:7f00:1', 'reserved'],
    ['::127.0.0.1', 'reserved'],
    ['::8.8.8.8', 'reserved'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['64:ff9b:1::1', 'private'],
    ['100::1', 'reserved'],
    ['2001::1', 'reserved'],
    ['2001:1ff:ffff::1', 'reserved'],
    ['2001:200::1', 'public'],
    ['2001:db8::1', 'reserved'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['2002:808:808::1', 'public'],
    ['2606:2800:220:1:248:1893:25c8:1946', 'public'],
    ['2a00:1450:4001::1', 'public'],
    ['3fff::1', 'reserved'],
    ['5f00::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['fc00::1', 'private'],
    ['fdff:ffff::1', 'private'],
    ['fd00:ec2::254', 'metadata'],
    ['fd00:ec2::253', 'metadata'],
    ['fd00:ec2::255', 'private'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf::1', 'link_local'],
    ['fec0::1', 'private'],
    ['ff00::1', 'multicast'],
    ['ff02::1', 'multicast'],
  ];
  for (const [address, expected] of cases) assert.equal(cls(address), expected, address);
});

test('text that is not an IP address is not classified', () => {
  for (const text of [
    'localhost',
    'example.com',
    '127.1',
    '0177.0.0.1',
    '1.2.3.4.5',
    '256.1.1.1',
    '01.2.3.4',
    '',
    ':::',
    '1::2::3',
    '12345::',
    '[::1',
    'g::1',
    '1:2:3:4:5:6:7:8:9',
    '::ffff:1.2.3',
  ]) {
    assert.equal(classifyAddress(text), null, JSON.stringify(text));
  }
});

const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.'));
const v6 = fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }).map((g) => g.map((n) => n.toString(16)).join(':'));

test('property: the canonical text of an IPv6 address is the one WHATWG URL parsing produces', () => {
  fc.assert(
    fc.property(v6, (text) => {
      const canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
      assert.equal(classifyAddress(text)?.address, canonical);
      assert.equal(classifyAddress(canonical)?.address, canonical);
    }),
    { numRuns: 2000 },
  );
});

test('property: an IPv4 address, its IPv4-mapped form and its NAT64 form are judged alike', () => {
  fc.assert(
    fc.property(v4, (address) => {
      const plain = cls(address);
      assert.equal(cls(`::ffff:${address}`), plain);
      assert.equal(cls(`64:ff9b::${address}`), plain);
      assert.equal(classifyAddress(address)?.address, address);
    }),
    { numRuns: 2000 },
  );
});

test('property: the whole of each private and loopback block is classified so', () => {
  fc.assert(
    fc.property(fc.nat(0xffffff), fc.nat(0xfffff), fc.nat(0xffff), (a, b, c) => {
      const dotted = (n: number) => [24, 16, 8, 0].map((s) => (n >>> s) & 0xff).join('.');
      assert.equal(cls(dotted((10 << 24) | a)), 'private');
      assert.equal(cls(dotted(((127 << 24) | a) >>> 0)), 'loopback');
      assert.equal(cls(dotted(((172 << 24) | (16 << 16) | b) >>> 0)), 'private');
      assert.equal(cls(dotted(((192 << 24) | (168 << 16) | c) >>> 0)), 'private');
    }),
    { numRuns: 1000 },
  );
});

test('the parsers (ipaddr.js) read every spelling of an address, and nothing else', () => {
  const address = (text: string) => classifyAddress(text)?.address ?? null;
  assert.equal(address('1.2.3.4'), '1.2.3.4');
  assert.equal(address('::1'), '::1');
  assert.equal(address('::ffff:1.2.3.4'), '::ffff:102:304');
  assert.equal(address('1:2:3:4:5:6:7:8'), '1:2:3:4:5:6:7:8');
  assert.equal(address('1:2:3:4:5:6:1.2.3.4'), '1:2:3:4:5:6:102:304');
  assert.equal(address('1:2:3:4:5:6:7::'), '1:2:3:4:5:6:7:0');
  assert.equal(address('::1:2:3:4:5:6:7'), '0:1:2:3:4:5:6:7');
  assert.equal(address('2001:DB8:0:0:1:0:0:1'), '2001:db8::1:0:0:1');
  assert.equal(address('fe80::1%eth0.5'), 'fe80::1');
  for (const bad of ['1:2:3:4:5:6:7:8::', '01.2.3.4', '127.1', '0x7f.0.0.1', '1.2.3.256', '::ffff:1.2.3', '12345::1', ':::1', '']) {
    assert.equal(address(bad), null, bad);
  }
});
