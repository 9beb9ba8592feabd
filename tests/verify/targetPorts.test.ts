import { describe, expect, it } from 'vitest';
import { targetPortsOf } from '../../shared/infra/verify/gates/target.js';

describe('the ports a check talks to', () => {
  it('are read from loopback addresses in its command, with $PORT-style variables from its environment', () => {
    const env = { PORT: '4100', API_PORT: '4101' };
    const cases: Array<[string, number[]]> = [
      ['curl -sf http://localhost:3000/health', [3000]],
      ['BASE_URL=http://127.0.0.1:${PORT} npm run e2e', [4100]],
      ['curl localhost:$API_PORT/ && curl "http://[::1]:9000/x"', [4101, 9000]],
      ['node probe.mjs --url http://0.0.0.0:5000', [5000]],
      ['curl http://example.com:80/ && curl 10.0.0.2:8080', []],
      ['curl localhost:$UNSET_PORT/', []],
      ['curl localhost:300000/', []],
      ['npm test', []],
    ];
    for (const [command, ports] of cases) expect(targetPortsOf({ command }, env), command).toEqual(ports);
  });

  it('and from the ports its spec declares', () => {
    expect(targetPortsOf({ command: 'npm run e2e', target_ports: [4200, 4100] }, {})).toEqual([4100, 4200]);
  });
});
