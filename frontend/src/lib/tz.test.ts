import { describe, expect, it } from 'vitest';
import { formatInZone, validZone, zoneChoices } from './tz';

const instant = Date.UTC(2026, 4, 27, 10, 16, 0, 32);

describe('cluster time zones', () => {
  it('formats an instant on another clock with its offset', () => {
    // ICU versions differ on whether UTC prints "GMT" or "GMT+0".
    expect(formatInZone(instant, 'en-US', 'UTC')).toMatch(/^05\/27\/2026, 10:16:00\.032 GMT(\+0)?$/);
    expect(formatInZone(instant, 'en-US', 'Asia/Shanghai')).toBe('05/27/2026, 18:16:00.032 GMT+8');
    expect(formatInZone(instant, 'en-US', 'Asia/Kathmandu')).toBe('05/27/2026, 16:01:00.032 GMT+5:45');
  });

  it('refuses unknown zones and absent instants', () => {
    expect(validZone('Mars/Olympus')).toBe(false);
    expect(validZone('')).toBe(false);
    expect(formatInZone(instant, 'en-US', 'Mars/Olympus')).toBe('—');
    expect(formatInZone(0, 'en-US', 'UTC')).toBe('—');
  });

  it('offers UTC first and real zones', () => {
    const z = zoneChoices();
    expect(z[0]).toBe('UTC');
    expect(z.filter((x) => x === 'UTC')).toHaveLength(1);
    expect(z.every(validZone)).toBe(true);
  });
});
