// Times as the chain and the log write them: UTC, RFC 3339, exactly nine
// fractional digits. Date keeps milliseconds only, so the nanoseconds are
// carried as text.

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/** zeroTime is the key of Go's zero time, which the chain writes as "". */
export const zeroTime = "0001-01-01T00:00:00.000000000Z";

/** timeKey is an RFC 3339 time in UTC with nine fractional digits; it
 * throws when s is not an RFC 3339 time. */
export function timeKey(s: string): string {
  const m = rfc3339.exec(s);
  if (!m) throw new Error(`${JSON.stringify(s)} is not an RFC 3339 time`);
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d);
  t.setUTCHours(h, mi, sec, 0);
  if (t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d || h > 23 || mi > 59 || sec > 59) {
    throw new Error(`${JSON.stringify(s)} is not a valid time`);
  }
  if (m[8]) {
    const offset = (Number(m[9]) * 60 + Number(m[10])) * (m[8] === "-" ? -1 : 1);
    t.setTime(t.getTime() - offset * 60_000);
  }
  const p = (n: number, w = 2): string => String(n).padStart(w, "0");
  return `${p(t.getUTCFullYear(), 4)}-${p(t.getUTCMonth() + 1)}-${p(t.getUTCDate())}T${p(t.getUTCHours())}:${p(t.getUTCMinutes())}:${p(t.getUTCSeconds())}.${(m[7] ?? "").padEnd(9, "0")}Z`;
}

/** canonicalTime is timeKey, and "" for the zero time (an absent time). */
export function canonicalTime(s: string): string {
  const k = timeKey(s);
  return k === zeroTime ? "" : k;
}
