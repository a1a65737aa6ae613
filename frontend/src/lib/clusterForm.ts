// The cluster form's model: defaults, editing an existing source, and the
// checks done before anything is sent (the backend validates again).
import type { ClusterInput, SourceView } from './api';

export function emptyCluster(): ClusterInput {
  return {
    name: '',
    engine: 'flink',
    base_url: '',
    prometheus_url: '',
    auth: { kind: 'none', username: '', password: '', token: '' },
    ca_file: '',
    insecure_skip_verify: false,
  };
}

/**
 * fromSource fills the form for editing. Secrets are never sent to the UI, so
 * password/token start empty (the user name is not a secret and comes along) — the backend keeps the stored ones when they
 * come back empty.
 */
export function fromSource(s: SourceView): ClusterInput {
  return {
    name: s.name,
    engine: s.engine,
    base_url: s.base_url,
    prometheus_url: s.prometheus_url ?? '',
    auth: { kind: s.auth_kind || 'none', username: s.username ?? '', password: '', token: '' },
    ca_file: s.ca_file ?? '',
    insecure_skip_verify: !!s.insecure_skip_verify,
  };
}

/** A problem with one field: the i18n key of the message and the field it names. */
export interface FieldProblem {
  field: keyof ClusterInput | 'username';
  key: string;
}

function httpURL(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.host !== '';
  } catch {
    return false;
  }
}

/**
 * validateCluster lists what is wrong with the input; empty means it may be
 * sent. existing names are the other clusters, to catch a duplicate on add.
 */
export function validateCluster(input: ClusterInput, existing: string[], editing: boolean): FieldProblem[] {
  const out: FieldProblem[] = [];
  const name = input.name.trim();
  if (!name) out.push({ field: 'name', key: 'clusters.err.nameRequired' });
  else if (!editing && existing.includes(name)) out.push({ field: 'name', key: 'clusters.err.nameTaken' });
  if (input.engine !== 'flink' && input.engine !== 'seatunnel') out.push({ field: 'engine', key: 'clusters.err.engine' });
  if (!input.base_url.trim()) out.push({ field: 'base_url', key: 'clusters.err.baseUrlRequired' });
  else if (!httpURL(input.base_url.trim())) out.push({ field: 'base_url', key: 'clusters.err.baseUrlInvalid' });
  if (input.prometheus_url.trim() && !httpURL(input.prometheus_url.trim())) {
    out.push({ field: 'prometheus_url', key: 'clusters.err.prometheusUrlInvalid' });
  }
  if (input.auth.kind === 'basic' && !input.auth.username.trim()) {
    out.push({ field: 'username', key: 'clusters.err.usernameRequired' });
  }
  return out;
}

/** normalise trims text fields and drops credentials that the chosen auth kind does not use. */
export function normalise(input: ClusterInput): ClusterInput {
  const kind = input.auth.kind;
  return {
    ...input,
    name: input.name.trim(),
    base_url: input.base_url.trim(),
    prometheus_url: input.prometheus_url.trim(),
    ca_file: input.ca_file.trim(),
    auth: {
      kind,
      username: kind === 'basic' ? input.auth.username.trim() : '',
      password: kind === 'basic' ? input.auth.password : '',
      token: kind === 'bearer' ? input.auth.token : '',
    },
  };
}
