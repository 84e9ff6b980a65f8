import { describe, expect, it } from 'vitest';
import { classifyAddress, parseIpv6, refusedCategory } from './address-policy.ts';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.10', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['169.254.1.1', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.5', 'documentation'],
    ['198.18.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd00::1', 'private'],
    ['fc00::1', 'private'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['ff02::1', 'multicast'],
    ['fd00:ec2::254', 'metadata'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:10.0.0.1', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    ['2001:db8::1', 'documentation'],
    ['2001::1', 'reserved'],
    ['[::1]', 'loopback'],
  ])('%s is %s', (ip, category) => {
    expect(classifyAddress(ip)).toBe(category);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('%s is public', (ip) => {
    expect(classifyAddress(ip)).toBeNull();
  });

  it('treats text that is not an address as never connectable', () => {
    expect(classifyAddress('not-an-ip')).toBe('reserved');
  });
});

describe('refusedCategory with WEBHOOK_ALLOW_PRIVATE_NETWORKS', () => {
  it('lets loopback, private and CGNAT through only when allowed', () => {
    for (const ip of ['127.0.0.1', '10.0.0.1', '192.168.1.1', '100.64.0.1', '::1', 'fd12::1']) {
      expect(refusedCategory(ip, false)).not.toBeNull();
      expect(refusedCategory(ip, true)).toBeNull();
    }
  });
  it('never lets metadata, link-local, multicast or unspecified through', () => {
    for (const ip of ['169.254.169.254', '169.254.0.5', 'fe80::1', '224.0.0.1', '0.0.0.0', '::', 'fd00:ec2::254', '100.100.100.200'])
      expect(refusedCategory(ip, true)).not.toBeNull();
  });
});

describe('parseIpv6', () => {
  it('expands :: and embedded IPv4', () => {
    expect([...parseIpv6('::ffff:1.2.3.4')!]).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 1, 2, 3, 4]);
    expect([...parseIpv6('1::')!].slice(0, 2)).toEqual([0, 1]);
    expect(parseIpv6('1.2.3.4')).toBeUndefined();
  });
});
