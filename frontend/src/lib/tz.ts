// A cluster's time zone, for showing an instant as the cluster's logs print
// it next to the local time the UI uses everywhere. Engines do not report
// their zone, so the user picks it per cluster; '' means "local only".

import { DATE_TIME_MS, df } from './format';

/** validZone reports whether Intl knows the IANA zone (or "UTC"). */
export function validZone(zone: string): boolean {
  if (!zone) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** formatInZone renders an instant in zone with milliseconds and the zone's UTC offset, e.g. "2026-05-27 18:16:10.034 GMT+8". */
export function formatInZone(ms: number, locale: string, zone: string): string {
  if (!ms || !Number.isFinite(ms) || !validZone(zone)) return '—';
  return df(locale, { ...DATE_TIME_MS, timeZone: zone, timeZoneName: 'shortOffset' }).format(ms);
}

/** localOffsetLabel is the browser's UTC offset at ms, e.g. "UTC+08:00". */
export function localOffsetLabel(ms: number): string {
  const off = -new Date(ms).getTimezoneOffset();
  const sign = off < 0 ? '−' : '+';
  const a = Math.abs(off);
  return `UTC${sign}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

/** zoneChoices lists the zones to offer: UTC first, then every IANA zone the runtime knows. */
export function zoneChoices(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (k: string) => string[] };
  const all = intl.supportedValuesOf ? intl.supportedValuesOf('timeZone') : [];
  return ['UTC', ...all.filter((z) => z !== 'UTC')];
}
