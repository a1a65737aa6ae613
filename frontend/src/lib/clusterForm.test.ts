import { describe, expect, it } from 'vitest';
import type { SourceView } from './api';
import { emptyCluster, fromSource, normalise, validateCluster } from './clusterForm';

function valid() {
  return { ...emptyCluster(), name: 'prod', base_url: 'http://127.0.0.1:8081' };
}

describe('validateCluster', () => {
  it('accepts a minimal valid cluster', () => {
    expect(validateCluster(valid(), [], false)).toEqual([]);
  });

  it.each([
    [{ name: '  ' }, 'name', 'clusters.err.nameRequired'],
    [{ base_url: '' }, 'base_url', 'clusters.err.baseUrlRequired'],
    [{ base_url: 'localhost:8081' }, 'base_url', 'clusters.err.baseUrlInvalid'],
    [{ base_url: 'ftp://host' }, 'base_url', 'clusters.err.baseUrlInvalid'],
    [{ prometheus_url: 'not a url' }, 'prometheus_url', 'clusters.err.prometheusUrlInvalid'],
    [{ engine: 'spark' }, 'engine', 'clusters.err.engine'],
  ])('rejects %j on %s', (patch, field, key) => {
    const input = { ...valid(), ...patch } as ReturnType<typeof valid>;
    expect(validateCluster(input, [], false)).toContainEqual({ field, key });
  });

  it('needs a user name for basic auth', () => {
    const input = valid();
    input.auth = { kind: 'basic', username: '', password: 'x', token: '' };
    expect(validateCluster(input, [], false)).toEqual([{ field: 'username', key: 'clusters.err.usernameRequired' }]);
  });

  it('rejects a duplicate name when adding but not when editing', () => {
    expect(validateCluster(valid(), ['prod'], false)).toEqual([{ field: 'name', key: 'clusters.err.nameTaken' }]);
    expect(validateCluster(valid(), ['prod'], true)).toEqual([]);
  });

  it('reports every problem at once', () => {
    expect(validateCluster(emptyCluster(), [], false).map((p) => p.field)).toEqual(['name', 'base_url']);
  });
});

describe('normalise', () => {
  it('trims and drops credentials the auth kind does not use', () => {
    const input = valid();
    input.name = ' prod ';
    input.auth = { kind: 'bearer', username: 'u', password: 'p', token: ' t ' };
    const n = normalise(input);
    expect(n.name).toBe('prod');
    // Tokens are sent verbatim: whitespace may be part of a secret.
    expect(n.auth).toEqual({ kind: 'bearer', username: '', password: '', token: ' t ' });
  });
});

describe('fromSource', () => {
  it('fills the form without secrets so the stored ones are kept', () => {
    const s: SourceView = {
      name: 'prod',
      engine: 'seatunnel',
      base_url: 'https://zeta:5801',
      prometheus_url: '',
      auth_kind: 'basic',
      username: 'ops',
      ca_file: '/ca.pem',
      insecure_skip_verify: true,
      kind: 'cluster',
      read_only: false,
      health: { state: 'ok', last_error: '', last_ok_ms: 1, requests_per_sec: 0 },
    };
    const f = fromSource(s);
    expect(f).toEqual({
      name: 'prod',
      engine: 'seatunnel',
      base_url: 'https://zeta:5801',
      prometheus_url: '',
      auth: { kind: 'basic', username: 'ops', password: '', token: '' },
      ca_file: '/ca.pem',
      insecure_skip_verify: true,
    });
  });
});
