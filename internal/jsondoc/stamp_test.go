package jsondoc

import (
	"reflect"
	"testing"
	"time"
	"unsafe"
)

// A stamp is written in UTC with three fractional digits (nine below the
// millisecond), whatever its zone and however many trailing zeros, and
// refused on a field that is not a time.Time.
func TestStampField(t *testing.T) {
	type doc struct {
		At time.Time
	}
	e, err := NewFieldEncoder("at", reflect.TypeFor[time.Time](), unsafe.Offsetof(doc{}.At), false, true)
	if err != nil {
		t.Fatal(err)
	}
	encs := []FieldEncoder{e}
	for _, c := range []struct {
		at   time.Time
		want string
	}{
		{time.Date(2026, 12, 7, 10, 0, 5, 120000000, time.UTC), `{"at":"2026-12-07T10:00:05.120Z"}`},
		{time.Date(2026, 12, 7, 10, 0, 5, 0, time.UTC), `{"at":"2026-12-07T10:00:05.000Z"}`},
		{time.Date(2026, 12, 7, 11, 0, 5, 123000000, time.FixedZone("", 3600)), `{"at":"2026-12-07T10:00:05.123Z"}`},
		{time.Date(2026, 12, 7, 10, 0, 5, 123400000, time.UTC), `{"at":"2026-12-07T10:00:05.123400000Z"}`},
	} {
		d := doc{c.at}
		if err := e.CheckTime(unsafe.Pointer(&d)); err != nil {
			t.Fatalf("%v: %v", c.at, err)
		}
		if got := string(AppendFields(nil, unsafe.Pointer(&d), encs)); got != c.want {
			t.Errorf("%v: got %s, want %s", c.at, got, c.want)
		}
	}
	late := doc{time.Date(9999, 12, 31, 23, 30, 0, 0, time.FixedZone("", -3600))}
	if err := e.CheckTime(unsafe.Pointer(&late)); err == nil {
		t.Error("a stamp of year 10000 in UTC passes its check")
	}
	farZone := doc{time.Date(2026, 12, 7, 10, 0, 5, 0, time.FixedZone("", 25*3600))}
	if err := e.CheckTime(unsafe.Pointer(&farZone)); err != nil {
		t.Errorf("a stamp in a zone json.Marshal refuses, written in UTC, fails its check: %v", err)
	}
	if _, err := NewFieldEncoder("s", reflect.TypeFor[string](), 0, false, true); err == nil {
		t.Error("a string is taken as a stamp")
	}
}
