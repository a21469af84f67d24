package jsondoc

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/todoaudit/todo/internal/timetext"
)

// Encoding: the hand-written encoders of the documents every write stores
// build on these, and give the bytes json.Marshal gives, but for a time
// field declared a stamp (see NewFieldEncoder). A struct's
// fields are read at their offsets and written by direct calls, because
// reflection (reflect.ValueOf) or calls through function values would
// make the struct escape, and every answer allocate it.

// Appender is a document that appends its own encoding, the bytes
// json.Marshal gives.
type Appender interface {
	AppendJSON([]byte) ([]byte, error)
}

// Marshal returns what v appends, in a slice of about its length, as
// json.Marshal returns it: the encoding is built in a pooled buffer, so
// that a stored document keeps no spare room.
func Marshal[T Appender](v T) ([]byte, error) {
	bp := encodeBuffers.Get().(*[]byte)
	b, err := v.AppendJSON((*bp)[:0])
	var out []byte
	if err == nil {
		out = bytes.Clone(b)
		*bp = b[:0]
	}
	if cap(*bp) <= maxEncodeBuffer {
		encodeBuffers.Put(bp)
	}
	return out, err
}

// maxEncodeBuffer bounds the buffers Marshal keeps: a larger one, grown
// by a rare large document, is left to the collector.
const maxEncodeBuffer = 64 << 10

var encodeBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// valueKind is how a field's value is stored, and so encoded.
type valueKind uint8

const (
	encString valueKind = iota + 1 // any type whose underlying type is string
	encBool
	encInt
	encInt64
	encTime
	encStamp // a time.Time in timetext.StampLayout
	encTimePointer
	encStrings
)

// FieldEncoder writes one field of a struct as an object member.
type FieldEncoder struct {
	offset    uintptr // in the struct
	key       string  // ,"name":
	name      string
	omitEmpty bool
	kind      valueKind
}

// NewFieldEncoder returns the encoder of the field at offset of type t,
// named name and tagged omitempty or not, or an error for a type it
// cannot encode. A stamp is a time.Time written in UTC in
// timetext.StampLayout, not as json.Marshal writes it, so that its text
// sorts as the time does.
func NewFieldEncoder(name string, t reflect.Type, offset uintptr, omitEmpty, stamp bool) (FieldEncoder, error) {
	k := valueKindOf(t)
	if k == 0 {
		return FieldEncoder{}, fmt.Errorf("property %s is a %s, which AppendFields cannot encode: add its kind to valueKindOf and appendValue", name, t)
	}
	if stamp {
		if k != encTime {
			return FieldEncoder{}, fmt.Errorf("property %s is a %s, which cannot be a stamp", name, t)
		}
		k = encStamp
	}
	key := string(AppendString([]byte{','}, name, JSON)) + ":"
	return FieldEncoder{offset: offset, key: key, name: name, omitEmpty: omitEmpty, kind: k}, nil
}

func valueKindOf(t reflect.Type) valueKind {
	switch t {
	case timeType:
		return encTime
	case timePointerType:
		return encTimePointer
	case stringsType:
		return encStrings
	}
	switch t.Kind() {
	case reflect.String:
		return encString
	case reflect.Bool:
		return encBool
	case reflect.Int:
		return encInt
	case reflect.Int64:
		return encInt64
	}
	return 0
}

// CheckTime reports why the field e encodes of the struct at base, if it
// is a time, is one json.Marshal refuses: a year before 0 or after 9999,
// or a zone offset of a day or more, what time.Time.AppendText refuses; a
// stamp is checked as the UTC time it is written as. Checked before
// encoding, so that AppendFields carries no error.
func (e *FieldEncoder) CheckTime(base unsafe.Pointer) error {
	var tm *time.Time
	switch p := unsafe.Add(base, e.offset); e.kind {
	case encStamp:
		utc := (*time.Time)(p).UTC()
		tm = &utc
	case encTime:
		tm = (*time.Time)(p)
	case encTimePointer:
		tm = *(**time.Time)(p)
	}
	if tm == nil {
		return nil
	}
	_, offset := tm.Zone()
	if y := tm.Year(); y < 0 || y > 9999 || offset <= -24*3600 || offset >= 24*3600 {
		return fmt.Errorf("%s, of year %d and zone offset %d s, cannot be written in RFC 3339", e.name, y, offset)
	}
	return nil
}

// AppendFields appends the fields encs encode of the struct at base as a
// JSON object, in their order, the bytes encoding/json would give but for
// stamps.
func AppendFields(b []byte, base unsafe.Pointer, encs []FieldEncoder) []byte {
	b = append(b, '{')
	first := true
	for i := range encs {
		e := &encs[i]
		p := unsafe.Add(base, e.offset)
		if e.omitEmpty && empty(e.kind, p) {
			continue
		}
		if first {
			b = append(b, e.key[1:]...)
			first = false
		} else {
			b = append(b, e.key...)
		}
		b = appendValue(b, e.kind, p)
	}
	return append(b, '}')
}

// empty reports whether encoding/json's omitempty leaves the value of kind
// k at p out.
func empty(k valueKind, p unsafe.Pointer) bool {
	switch k {
	case encString:
		return *(*string)(p) == ""
	case encBool:
		return !*(*bool)(p)
	case encInt:
		return *(*int)(p) == 0
	case encInt64:
		return *(*int64)(p) == 0
	case encTimePointer:
		return *(**time.Time)(p) == nil
	case encStrings:
		return len(*(*[]string)(p)) == 0
	}
	return false // a struct (time.Time) is never empty
}

// appendValue appends the value of kind k at p as JSON.
func appendValue(b []byte, k valueKind, p unsafe.Pointer) []byte {
	switch k {
	case encString:
		return AppendString(b, *(*string)(p), JSON)
	case encBool:
		return strconv.AppendBool(b, *(*bool)(p))
	case encInt:
		return strconv.AppendInt(b, int64(*(*int)(p)), 10)
	case encInt64:
		return strconv.AppendInt(b, *(*int64)(p), 10)
	case encTime:
		return appendQuoted(b, *(*time.Time)(p), timetext.AppendRFC3339Nano)
	case encStamp:
		return appendQuoted(b, *(*time.Time)(p), timetext.AppendStamp)
	case encTimePointer:
		if t := *(**time.Time)(p); t != nil {
			return appendQuoted(b, *t, timetext.AppendRFC3339Nano)
		}
	case encStrings:
		if tags := *(*[]string)(p); tags != nil {
			return AppendStrings(b, tags)
		}
	}
	return append(b, "null"...)
}

// appendQuoted appends t as a JSON string in the layout layout appends.
func appendQuoted(b []byte, t time.Time, layout func([]byte, time.Time) []byte) []byte {
	return append(layout(append(b, '"'), t), '"')
}

// AppendTimeMember appends key and t as its MarshalJSON writes it,
// failing where it fails.
func AppendTimeMember(b []byte, key string, t time.Time) ([]byte, error) {
	b, err := t.AppendText(append(b, key+`"`...))
	if err != nil {
		return nil, err
	}
	return append(b, '"'), nil
}

// AppendMember appends key (with its comma and colon) and the string s.
func AppendMember(b []byte, key, s string) []byte {
	return AppendString(append(b, key...), s, JSON)
}

// AppendOmitEmpty is AppendMember for a property tagged omitempty.
func AppendOmitEmpty(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return AppendMember(b, key, s)
}

// AppendStrings appends ss as a JSON array of strings.
func AppendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, s, JSON)
	}
	return append(b, ']')
}
