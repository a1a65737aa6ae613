// User preferences kept in localStorage: the time zone chosen per cluster
// (engines do not report theirs), so tooltips can show the cluster's clock;
// the fleet's window.
import { formatInZone, validZone } from './tz';
import { i18n } from './i18n.svelte';
import { fleetWindow } from './fleet';

const ZONES_KEY = 'ce.clusterZones';
const FLEET_WINDOW_KEY = 'ce.fleetWindow';

function loadFleetWindow(): number {
  try {
    return fleetWindow(Number(typeof localStorage === 'undefined' ? null : localStorage.getItem(FLEET_WINDOW_KEY)));
  } catch {
    return fleetWindow(undefined);
  }
}

function load(): Record<string, string> {
  try {
    const raw = typeof localStorage === 'undefined' ? null : localStorage.getItem(ZONES_KEY);
    const v = raw ? (JSON.parse(raw) as unknown) : null;
    if (!v || typeof v !== 'object') return {};
    const out: Record<string, string> = {};
    for (const [k, z] of Object.entries(v as Record<string, unknown>)) if (typeof z === 'string' && validZone(z)) out[k] = z;
    return out;
  } catch {
    return {};
  }
}

class Prefs {
  zones = $state<Record<string, string>>(load());
  /** the fleet's window, one of FLEET_WINDOWS */
  fleetWindowMs = $state(loadFleetWindow());

  setFleetWindow(ms: number) {
    this.fleetWindowMs = fleetWindow(ms);
    try {
      localStorage.setItem(FLEET_WINDOW_KEY, String(this.fleetWindowMs));
    } catch {
      // kept for this session only
    }
  }

  zoneFor(cluster: string): string {
    return this.zones[cluster] ?? '';
  }

  setZone(cluster: string, zone: string) {
    const next = { ...this.zones };
    if (zone && validZone(zone)) next[cluster] = zone;
    else delete next[cluster];
    this.zones = next;
    try {
      localStorage.setItem(ZONES_KEY, JSON.stringify(next));
    } catch {
      // kept for this session only
    }
  }

  /** clusterTime formats an instant on the cluster's clock, or is undefined when no zone is set. */
  clusterTime(cluster: string): ((ms: number) => string) | undefined {
    const z = this.zoneFor(cluster);
    if (!z) return undefined;
    const loc = i18n.locale;
    return (ms: number) => `${formatInZone(ms, loc, z)} (${z})`;
  }
}

export const prefs = new Prefs();
