import { describe, expect, it } from 'vitest';
import { isHostAddress, matchingRule, parseEgressRule, proxyHosts } from '../../shared/core/sandbox/egressRules.js';

describe('egress rules', () => {
  const rules = ['example.com', '*.github.com', 'localhost:8123', 'api.test:443'].map(parseEgressRule);

  it('let a host through on any port, a wildcard its subdomains, host:port that port only', () => {
    expect(matchingRule(rules, 'example.com', 443)).toEqual({ host: 'example.com' });
    expect(matchingRule(rules, 'Example.COM.', 80)).toEqual({ host: 'example.com' });
    expect(matchingRule(rules, 'api.github.com', 443)).toEqual({ host: '*.github.com' });
    expect(matchingRule(rules, 'evilgithub.com', 443)).toBeUndefined();
    expect(matchingRule(rules, 'localhost', 8123)).toEqual({ host: 'localhost', port: 8123 });
    expect(matchingRule(rules, 'localhost', 6379)).toBeUndefined();
    expect(matchingRule(rules, 'api.test', 80)).toBeUndefined();
    expect(matchingRule([parseEgressRule('*')], 'anything.org', 443)).toEqual({ host: '*' });
  });

  it('refuse a rule that is no host, in one line saying how to write one', () => {
    expect(() => parseEgressRule('https://example.com/path')).toThrow(
      '"https://example.com/path" is not an allowed domain: write example.com, *.example.com or host:port',
    );
  });

  it("know the host's own addresses: loopback, link-local, unspecified", () => {
    for (const address of ['127.0.0.1', '127.1.2.3', '::1', '169.254.169.254', '0.0.0.0', '::ffff:127.0.0.1', 'fe80::1'])
      expect(isHostAddress(address), address).toBe(true);
    for (const address of ['93.184.216.34', '10.0.0.1', '2606:4700::1111']) expect(isHostAddress(address), address).toBe(false);
  });

  it('read ORCA_PROXY_HOSTS, and name a pair that is not name=address', () => {
    expect(proxyHosts({ ORCA_PROXY_HOSTS: 'api.example.test=127.0.0.1, Staging.Test=10.0.0.5' })).toEqual(
      new Map([
        ['api.example.test', '127.0.0.1'],
        ['staging.test', '10.0.0.5'],
      ]),
    );
    expect(() => proxyHosts({ ORCA_PROXY_HOSTS: 'api.example.test' })).toThrow(
      'ORCA_PROXY_HOSTS: "api.example.test" is not name=address (an IP address): e.g. api.example.test=127.0.0.1',
    );
  });
});
