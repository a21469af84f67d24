package timetext

import (
	"testing"
	"time"
)

var zones = []*time.Location{time.UTC, time.FixedZone("", 0), time.FixedZone("X", 5*3600+30*60), time.FixedZone("Y", -7*3600)}

func check(t *testing.T, tm time.Time) {
	t.Helper()
	if got, want := string(AppendKey([]byte("x"), tm)), "x"+tm.UTC().Format(KeyLayout); got != want {
		t.Errorf("AppendKey(%v) = %q, want %q", tm, got, want)
	}
	if got, want := string(AppendRFC3339Nano([]byte("x"), tm)), "x"+tm.Format(time.RFC3339Nano); got != want {
		t.Errorf("AppendRFC3339Nano(%v) = %q, want %q", tm, got, want)
	}
	layout := StampLayout
	if tm.Nanosecond()%int(time.Millisecond) != 0 {
		layout = KeyLayout
	}
	if got, want := string(AppendStamp([]byte("x"), tm)), "x"+tm.UTC().Format(layout); got != want {
		t.Errorf("AppendStamp(%v) = %q, want %q", tm, got, want)
	}
}

// Every layout is written as time.Format writes it, at the edges of what they
// write themselves and past them.
func TestAsFormat(t *testing.T) {
	for _, tm := range []time.Time{
		{},
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 2, 3, 4, 5, 6, 7, time.UTC),
		time.Date(2026, 2, 3, 4, 5, 6, 120000000, time.UTC),
		time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999000000, time.UTC),
		time.Date(10000, 1, 1, 0, 30, 0, 0, time.FixedZone("X", 3600)),
		time.Date(2026, 2, 3, 4, 5, 6, 100, time.FixedZone("X", 3600)),
		time.Date(2026, 12, 1, 23, 30, 0, 0, time.FixedZone("Z", 0)),
		time.Now(),
		time.Now().Round(0),
	} {
		check(t, tm)
	}
}

func FuzzAsFormat(f *testing.F) {
	f.Add(int64(0), int64(0), uint8(0))
	f.Add(int64(1798761600), int64(123456789), uint8(2))
	f.Add(int64(-62167219201), int64(999999999), uint8(3))
	f.Add(int64(253402300799), int64(1), uint8(1))
	f.Fuzz(func(t *testing.T, sec, nsec int64, zone uint8) {
		check(t, time.Unix(sec, nsec).In(zones[int(zone)%len(zones)]))
	})
}

func BenchmarkAppendKey(b *testing.B) {
	buf, tm := make([]byte, 0, 64), time.Now()
	for b.Loop() {
		buf = AppendKey(buf[:0], tm)
	}
}

func BenchmarkFormatKey(b *testing.B) {
	buf, tm := make([]byte, 0, 64), time.Now()
	for b.Loop() {
		buf = tm.UTC().AppendFormat(buf[:0], KeyLayout)
	}
}
