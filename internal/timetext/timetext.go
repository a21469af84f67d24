// Package timetext writes the time layouts every write of a todo writes,
// the bytes time.Time.AppendFormat gives, in about a third of its time
// (see the benchmarks): it interprets its layout on every call, and every
// write formats several times.
package timetext

import "time"

// KeyLayout is UTC with exactly nine fractional digits: strings of this
// form compare as the times do, where RFC 3339 text with trimmed fractions
// does not.
const KeyLayout = "2006-01-02T15:04:05.000000000Z"

// AppendKey appends t in UTC in KeyLayout.
func AppendKey(b []byte, t time.Time) []byte {
	t = t.UTC()
	out, ok := appendDateTime(b, t)
	if !ok {
		return t.AppendFormat(b, KeyLayout)
	}
	b = append(out, '.')
	b = appendDigits(b, t.Nanosecond(), 9)
	return append(b, 'Z')
}

// StampLayout is UTC with exactly three fractional digits, the layout of
// the times the service stamps a todo with, which it reads to the
// millisecond: text of one width sorts as the times do, as a store's
// ORDER BY sorts it, where RFC 3339 text with trimmed fractions does not
// (".12Z" sorts after ".123Z").
const StampLayout = "2006-01-02T15:04:05.000Z"

// AppendStamp appends t in UTC in StampLayout, or in KeyLayout when t has
// digits below the millisecond, which StampLayout would drop.
func AppendStamp(b []byte, t time.Time) []byte {
	t = t.UTC()
	ns := t.Nanosecond()
	if ns%int(time.Millisecond) != 0 {
		return AppendKey(b, t)
	}
	out, ok := appendDateTime(b, t)
	if !ok {
		return t.AppendFormat(b, StampLayout)
	}
	b = append(out, '.')
	b = appendDigits(b, ns/int(time.Millisecond), 3)
	return append(b, 'Z')
}

// AppendRFC3339Nano appends t as t.AppendFormat(b, time.RFC3339Nano) does.
func AppendRFC3339Nano(b []byte, t time.Time) []byte {
	out, ok := appendDateTime(b, t)
	if _, offset := t.Zone(); !ok || offset != 0 {
		return t.AppendFormat(b, time.RFC3339Nano)
	}
	b = out
	if ns := t.Nanosecond(); ns != 0 {
		digits := 9
		for ns%10 == 0 {
			ns /= 10
			digits--
		}
		b = append(b, '.')
		b = appendDigits(b, ns, digits)
	}
	return append(b, 'Z')
}

// appendDateTime appends t's 2006-01-02T15:04:05 in its own zone; not
// ok, and b as it was, for a year outside 0 to 9999, which the layouts
// write otherwise.
func appendDateTime(b []byte, t time.Time) ([]byte, bool) {
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return b, false
	}
	hour, minute, second := t.Clock()
	b = appendDigits(b, year, 4)
	b = append(b, '-')
	b = appendDigits(b, int(month), 2)
	b = append(b, '-')
	b = appendDigits(b, day, 2)
	b = append(b, 'T')
	b = appendDigits(b, hour, 2)
	b = append(b, ':')
	b = appendDigits(b, minute, 2)
	b = append(b, ':')
	return appendDigits(b, second, 2), true
}

// appendDigits appends the n low decimal digits of v ≥ 0, zero-padded.
func appendDigits(b []byte, v, n int) []byte {
	b = append(b, "000000000"[:n]...)
	for i := len(b) - 1; n > 0; i, n = i-1, n-1 {
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return b
}
