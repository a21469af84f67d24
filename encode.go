package todo

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/todoaudit/todo/internal/jsondoc"
	"github.com/todoaudit/todo/internal/timetext"
)

// JSONAppender is a document that appends its own encoding, the bytes
// json.Marshal gives, faster than json.Marshal: the documents every write
// stores (Todo, Version, AuditRecord).
type JSONAppender interface {
	AppendJSON([]byte) ([]byte, error)
}

// MarshalJSON returns what v appends, in a slice of about its length, as
// json.Marshal returns it: the encoding is built in a pooled buffer, so
// that a stored document keeps no spare room.
func MarshalJSON[T JSONAppender](v T) ([]byte, error) {
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

// maxEncodeBuffer bounds the buffers MarshalJSON keeps: a larger one,
// grown by a rare large document, is left to the collector.
const maxEncodeBuffer = 64 << 10

var encodeBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// AppendJSON appends t as json.Marshal encodes it, or fails where it
// fails (a time it cannot write in RFC 3339): the stored document, and
// the entity of its audit record.
func (t Todo) AppendJSON(b []byte) ([]byte, error) {
	for i := range documentEncoders {
		if err := rfc3339Time(&documentEncoders[i], &t); err != nil {
			return nil, err
		}
	}
	return appendProperties(b, &t, documentEncoders), nil
}

// rfc3339Time reports why the property e encodes of t, if it is a time,
// is one json.Marshal refuses: a year before 0 or after 9999, or a zone
// offset of a day or more, what time.Time.AppendText refuses (the tests
// hold both edges against json.Marshal). Checked before encoding, so the
// view's encoders, which never meet such a time, carry no error.
func rfc3339Time(e *propertyEncoder, t *Todo) error {
	var tm *time.Time
	switch p := unsafe.Add(unsafe.Pointer(t), e.offset); e.kind {
	case kindTime:
		tm = (*time.Time)(p)
	case kindTimePointer:
		tm = *(**time.Time)(p)
	}
	if tm == nil {
		return nil
	}
	_, offset := tm.Zone()
	if y := tm.Year(); y < 0 || y > 9999 || offset <= -24*3600 || offset >= 24*3600 {
		return fmt.Errorf("todo: %s, of year %d and zone offset %d s, cannot be written in RFC 3339", e.key[2:len(e.key)-2], y, offset)
	}
	return nil
}

// AppendView appends the API view of t: the properties a client is shown
// (Property.Shown), as json.Marshal would encode a struct of only those.
func (t *Todo) AppendView(b []byte) []byte { return appendProperties(b, t, viewEncoders) }

// appendProperties appends the properties encs encode of t as a JSON
// object, in declaration order, the bytes encoding/json would give. The
// encoders are derived once from the struct tags, so a field added to Todo
// is encoded with no change here. A point read spends a good part of its
// time encoding, so each property is read at its offset in the struct and
// written by a direct call: reflection (reflect.ValueOf) or calls through
// function values would make t escape, and every answer allocate its todo.
func appendProperties(b []byte, t *Todo, encs []propertyEncoder) []byte {
	base := unsafe.Pointer(t)
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

// valueKind is how a property's value is stored, and so encoded.
type valueKind uint8

const (
	kindString valueKind = iota + 1 // any type whose underlying type is string
	kindBool
	kindInt
	kindInt64
	kindTime
	kindTimePointer
	kindStrings
)

// propertyEncoder writes one property of a todo.
type propertyEncoder struct {
	offset    uintptr // in Todo
	key       string  // ,"name":
	omitEmpty bool
	kind      valueKind
}

var (
	documentEncoders = encodersOf(func(*Property) bool { return true })
	viewEncoders     = encodersOf((*Property).Shown)
)

// encodersOf returns the encoders of the properties for which include is
// true.
func encodersOf(include func(*Property) bool) []propertyEncoder {
	var out []propertyEncoder
	for _, p := range Properties() {
		if !include(&p) {
			continue
		}
		k := kindOf(p.Type)
		if k == 0 {
			panic(fmt.Sprintf("todo: property %s is a %s, which appendProperties cannot encode: add its kind to kindOf and appendValue", p.Name, p.Type))
		}
		var offset uintptr
		t := reflect.TypeFor[Todo]()
		for _, i := range p.Index {
			f := t.Field(i)
			offset, t = offset+f.Offset, f.Type
		}
		key := string(jsondoc.AppendString([]byte{','}, p.Name, jsondoc.JSON)) + ":"
		out = append(out, propertyEncoder{offset: offset, key: key, omitEmpty: p.OmitEmpty, kind: k})
	}
	return out
}

func kindOf(t reflect.Type) valueKind {
	switch t {
	case reflect.TypeFor[time.Time]():
		return kindTime
	case reflect.TypeFor[*time.Time]():
		return kindTimePointer
	case reflect.TypeFor[[]string]():
		return kindStrings
	}
	switch t.Kind() {
	case reflect.String:
		return kindString
	case reflect.Bool:
		return kindBool
	case reflect.Int:
		return kindInt
	case reflect.Int64:
		return kindInt64
	}
	return 0
}

// empty reports whether encoding/json's omitempty leaves the value of kind
// k at p out.
func empty(k valueKind, p unsafe.Pointer) bool {
	switch k {
	case kindString:
		return *(*string)(p) == ""
	case kindBool:
		return !*(*bool)(p)
	case kindInt:
		return *(*int)(p) == 0
	case kindInt64:
		return *(*int64)(p) == 0
	case kindTimePointer:
		return *(**time.Time)(p) == nil
	case kindStrings:
		return len(*(*[]string)(p)) == 0
	}
	return false // a struct (time.Time) is never empty
}

// appendValue appends the value of kind k at p as JSON.
func appendValue(b []byte, k valueKind, p unsafe.Pointer) []byte {
	switch k {
	case kindString:
		return jsondoc.AppendString(b, *(*string)(p), jsondoc.JSON)
	case kindBool:
		return strconv.AppendBool(b, *(*bool)(p))
	case kindInt:
		return strconv.AppendInt(b, int64(*(*int)(p)), 10)
	case kindInt64:
		return strconv.AppendInt(b, *(*int64)(p), 10)
	case kindTime:
		return appendTime(b, *(*time.Time)(p))
	case kindTimePointer:
		if t := *(**time.Time)(p); t != nil {
			return appendTime(b, *t)
		}
	case kindStrings:
		if tags := *(*[]string)(p); tags != nil {
			return appendStrings(b, tags)
		}
	}
	return append(b, "null"...)
}

func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = timetext.AppendRFC3339Nano(b, t)
	return append(b, '"')
}

// AppendJSON appends r encoded as json.Marshal encodes it, property for
// property, without its reflection and without compacting the entity
// again: every write stores at least one record, and encoding/json spent
// most of a record's encoding compacting an entity it had itself written.
// r.Entity is checked to be one JSON value, which json.Marshal refuses
// otherwise, and written as it is: the bytes are json.Marshal's for an
// entity as json.Marshal and Todo.AppendJSON write it (compact, <, > and &
// escaped), and the same value with the entity's own spacing and escapes
// for any other. The test holds the two encodings equal for every
// property.
func (r AuditRecord) AppendJSON(b []byte) ([]byte, error) {
	b = appendMember(b, `{"id":`, r.ID)
	b = appendMember(b, `,"entityKey":`, r.EntityKey)
	b = appendMember(b, `,"entityId":`, r.EntityID)
	b = appendMember(b, `,"entityType":`, r.EntityType)
	b = strconv.AppendInt(append(b, `,"version":`...), r.Version, 10)
	b = appendMember(b, `,"operation":`, string(r.Operation))
	b = append(b, `,"entity":`...)
	switch {
	case r.Entity == nil:
		b = append(b, "null"...)
	case !jsondoc.Valid(r.Entity):
		return nil, errors.New("todo: audit record whose entity is not one JSON value")
	default:
		b = append(b, r.Entity...)
	}
	b, err := appendTimeMember(b, `,"dateCreatedUtc":`, r.DateCreatedUTC)
	if err != nil {
		return nil, err
	}
	b = appendMember(b, `,"actor":`, r.Actor)
	b = appendMember(b, `,"prevHash":`, r.PrevHash)
	b = appendMember(b, `,"hash":`, r.Hash)
	if b, err = appendSeal(b, r.Chain, r.Seed, r.Commitments); err != nil {
		return nil, err
	}
	if len(r.Erased) > 0 {
		b = appendStrings(append(b, `,"erased":`...), r.Erased)
	}
	b = appendOmitEmpty(b, `,"owner":`, r.Owner)
	b = appendOmitEmpty(b, `,"category":`, r.Category)
	b = appendOmitEmpty(b, `,"at":`, r.At)
	return append(b, '}'), nil
}

// AppendJSONAnd appends r as AppendJSON does, and then the members more
// (each with its leading comma): the encoding of a struct that embeds the
// record and adds properties after its own.
func (r AuditRecord) AppendJSONAnd(b, more []byte) ([]byte, error) {
	b, err := r.AppendJSON(b)
	if err != nil || len(more) == 0 {
		return b, err
	}
	return append(append(b[:len(b)-1], more...), '}'), nil
}

// AppendJSON appends v encoded as json.Marshal encodes it, property for
// property, its entity through Todo.AppendJSON: every write stores one.
// The test holds the two encodings equal for every property.
func (v Version) AppendJSON(b []byte) ([]byte, error) {
	b = appendMember(b, `{"id":`, v.ID)
	b = appendMember(b, `,"type":`, v.Type)
	b = appendMember(b, `,"todoId":`, v.TodoID)
	b = appendMember(b, `,"userId":`, v.UserID)
	b = appendMember(b, `,"category":`, v.Category)
	b = appendOmitEmpty(b, `,"partitionKey":`, v.PartitionKey)
	b = strconv.AppendInt(append(b, `,"version":`...), v.Version, 10)
	b = appendMember(b, `,"operation":`, string(v.Operation))
	b, err := v.Entity.AppendJSON(append(b, `,"entity":`...))
	if err != nil {
		return nil, err
	}
	b = appendMember(b, `,"actor":`, v.Actor)
	if b, err = appendTimeMember(b, `,"at":`, v.At); err != nil {
		return nil, err
	}
	b = appendMember(b, `,"prevHash":`, v.PrevHash)
	b = appendMember(b, `,"hash":`, v.Hash)
	if b, err = appendSeal(b, v.Chain, v.Seed, v.Commitments); err != nil {
		return nil, err
	}
	if v.TTL != 0 {
		b = strconv.AppendInt(append(b, `,"ttl":`...), int64(v.TTL), 10)
	}
	b = appendOmitEmpty(b, `,"traceparent":`, v.TraceParent)
	return append(b, '}'), nil
}

// appendSeal appends what versions and records say of their chain link
// beside its hashes: the encoding, the seed and the commitments, each
// tagged omitempty.
func appendSeal(b []byte, chain int, seed string, c Commitments) ([]byte, error) {
	if chain != 0 {
		b = strconv.AppendInt(append(b, `,"chain":`...), int64(chain), 10)
	}
	b = appendOmitEmpty(b, `,"seed":`, seed)
	if len(c) > 0 {
		b = appendCommitments(append(b, `,"commitments":`...), c)
	}
	return b, nil
}

// appendCommitments appends c as json.Marshal encodes the map: its names
// in order, each commitment's properties as its tags say. Every record is
// served with its commitments.
func appendCommitments(b []byte, c Commitments) []byte {
	names := slices.Sorted(maps.Keys(c))
	b = append(b, '{')
	for i, name := range names {
		if i > 0 {
			b = append(b, ',')
		}
		com := c[name]
		b = append(jsondoc.AppendString(b, name, jsondoc.JSON), ':', '{')
		if com.Salt != "" {
			b = append(appendMember(b, `"salt":`, com.Salt), ',')
		}
		b = appendMember(b, `"digest":`, com.Digest)
		if com.Erased {
			b = append(b, `,"erased":true`...)
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendTimeMember appends key and t as its MarshalJSON writes it,
// failing where it fails.
func appendTimeMember(b []byte, key string, t time.Time) ([]byte, error) {
	b, err := t.AppendText(append(b, key+`"`...))
	if err != nil {
		return nil, err
	}
	return append(b, '"'), nil
}

// appendMember appends key (with its comma and colon) and the string s.
func appendMember(b []byte, key, s string) []byte {
	return jsondoc.AppendString(append(b, key...), s, jsondoc.JSON)
}

// appendOmitEmpty is appendMember for a property tagged omitempty.
func appendOmitEmpty(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return appendMember(b, key, s)
}

// appendStrings appends ss as a JSON array of strings.
func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsondoc.AppendString(b, s, jsondoc.JSON)
	}
	return append(b, ']')
}
