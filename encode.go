package todo

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/todoaudit/todo/internal/jsondoc"
)

// JSONAppender is a document that appends its own encoding, the bytes
// json.Marshal gives, faster than json.Marshal: the documents every write
// stores (Todo, Version, AuditRecord).
type JSONAppender = jsondoc.Appender

// MarshalJSON returns what v appends, in a slice of about its length, as
// json.Marshal returns it (see jsondoc.Marshal).
func MarshalJSON[T JSONAppender](v T) ([]byte, error) { return jsondoc.Marshal(v) }

// AppendJSON appends t as json.Marshal would encode its fields, but for
// its stamps (Property.Stamp), which are in UTC with three fractional
// digits, or fails where it fails (a time it cannot write in RFC 3339):
// the stored document, the entity of its version and audit record, and
// MarshalJSON.
func (t Todo) AppendJSON(b []byte) ([]byte, error) {
	for i := range documentEncoders {
		if err := documentEncoders[i].CheckTime(unsafe.Pointer(&t)); err != nil {
			return nil, fmt.Errorf("todo: %w", err)
		}
	}
	return jsondoc.AppendFields(b, unsafe.Pointer(&t), documentEncoders), nil
}

// MarshalJSON is AppendJSON, so that a todo is written one way wherever
// it is encoded.
func (t Todo) MarshalJSON() ([]byte, error) { return t.AppendJSON(nil) }

// AppendView appends the API view of t: the properties a client is shown
// (Property.Shown), as AppendJSON writes them.
func (t *Todo) AppendView(b []byte) []byte {
	return jsondoc.AppendFields(b, unsafe.Pointer(t), viewEncoders)
}

// The encoders of a todo's properties are derived once from the struct
// tags, so a field added to Todo is encoded with no change here.
var (
	documentEncoders = encodersOf(func(*Property) bool { return true })
	viewEncoders     = encodersOf((*Property).Shown)
)

// encodersOf returns the encoders of the properties for which include is
// true, in declaration order.
func encodersOf(include func(*Property) bool) []jsondoc.FieldEncoder {
	var out []jsondoc.FieldEncoder
	for _, p := range Properties() {
		if !include(&p) {
			continue
		}
		var offset uintptr
		t := reflect.TypeFor[Todo]()
		for _, i := range p.Index {
			f := t.Field(i)
			offset, t = offset+f.Offset, f.Type
		}
		e, err := jsondoc.NewFieldEncoder(p.Name, p.Type, offset, p.OmitEmpty, p.Stamp)
		if err != nil {
			panic("todo: " + err.Error())
		}
		out = append(out, e)
	}
	return out
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
func (r AuditRecord) AppendJSON(b []byte) ([]byte, error) { return r.appendJSON(b, nil) }

// AppendJSONWith appends r as AppendJSONAnd does, with the commitments
// written by c in place of r's seed: a record stored with its seed,
// served with the commitments the seed gives, which c holds in another
// form than a map.
func (r AuditRecord) AppendJSONWith(b []byte, c JSONAppender, more []byte) ([]byte, error) {
	if r.Commitments != nil {
		return nil, errors.New("todo: audit record with commitments of its own and others")
	}
	return r.appendJSONAnd(b, c, more)
}

// appendJSON is AppendJSON, with the commitments written by c in place
// of the seed when c is not nil.
func (r AuditRecord) appendJSON(b []byte, c JSONAppender) ([]byte, error) {
	b = jsondoc.AppendMember(b, `{"id":`, r.ID)
	b = jsondoc.AppendMember(b, `,"entityKey":`, r.EntityKey)
	b = jsondoc.AppendMember(b, `,"entityId":`, r.EntityID)
	b = jsondoc.AppendMember(b, `,"entityType":`, r.EntityType)
	b = strconv.AppendInt(append(b, `,"version":`...), r.Version, 10)
	b = jsondoc.AppendMember(b, `,"operation":`, string(r.Operation))
	b = append(b, `,"entity":`...)
	switch {
	case r.Entity == nil:
		b = append(b, "null"...)
	case !jsondoc.Valid(r.Entity):
		return nil, errors.New("todo: audit record whose entity is not one JSON value")
	default:
		b = append(b, r.Entity...)
	}
	b, err := jsondoc.AppendTimeMember(b, `,"dateCreatedUtc":`, r.DateCreatedUTC)
	if err != nil {
		return nil, err
	}
	b = jsondoc.AppendMember(b, `,"actor":`, r.Actor)
	b = jsondoc.AppendMember(b, `,"prevHash":`, r.PrevHash)
	b = jsondoc.AppendMember(b, `,"hash":`, r.Hash)
	if c == nil {
		b, err = appendSeal(b, r.Chain, r.Seed, r.Commitments)
	} else if b, err = appendSeal(b, r.Chain, "", nil); err == nil {
		b, err = c.AppendJSON(append(b, `,"commitments":`...))
	}
	if err != nil {
		return nil, err
	}
	if len(r.Erased) > 0 {
		b = jsondoc.AppendStrings(append(b, `,"erased":`...), r.Erased)
	}
	b = jsondoc.AppendOmitEmpty(b, `,"owner":`, r.Owner)
	b = jsondoc.AppendOmitEmpty(b, `,"category":`, r.Category)
	b = jsondoc.AppendOmitEmpty(b, `,"at":`, r.At)
	return append(b, '}'), nil
}

// AppendJSONAnd appends r as AppendJSON does, and then the members more
// (each with its leading comma): the encoding of a struct that embeds the
// record and adds properties after its own.
func (r AuditRecord) AppendJSONAnd(b, more []byte) ([]byte, error) {
	return r.appendJSONAnd(b, nil, more)
}

// appendJSONAnd is appendJSON, then the members more.
func (r AuditRecord) appendJSONAnd(b []byte, c JSONAppender, more []byte) ([]byte, error) {
	b, err := r.appendJSON(b, c)
	if err != nil || len(more) == 0 {
		return b, err
	}
	return append(append(b[:len(b)-1], more...), '}'), nil
}

// AppendJSON appends v encoded as json.Marshal encodes it, property for
// property, its entity through Todo.AppendJSON: every write stores one.
// The test holds the two encodings equal for every property.
func (v Version) AppendJSON(b []byte) ([]byte, error) {
	b = jsondoc.AppendMember(b, `{"id":`, v.ID)
	b = jsondoc.AppendMember(b, `,"type":`, v.Type)
	b = jsondoc.AppendMember(b, `,"todoId":`, v.TodoID)
	b = jsondoc.AppendMember(b, `,"userId":`, v.UserID)
	b = jsondoc.AppendMember(b, `,"category":`, v.Category)
	b = jsondoc.AppendOmitEmpty(b, `,"partitionKey":`, v.PartitionKey)
	b = strconv.AppendInt(append(b, `,"version":`...), v.Version, 10)
	b = jsondoc.AppendMember(b, `,"operation":`, string(v.Operation))
	b, err := v.Entity.AppendJSON(append(b, `,"entity":`...))
	if err != nil {
		return nil, err
	}
	b = jsondoc.AppendMember(b, `,"actor":`, v.Actor)
	if b, err = jsondoc.AppendTimeMember(b, `,"at":`, v.At); err != nil {
		return nil, err
	}
	b = jsondoc.AppendMember(b, `,"prevHash":`, v.PrevHash)
	b = jsondoc.AppendMember(b, `,"hash":`, v.Hash)
	if b, err = appendSeal(b, v.Chain, v.Seed, v.Commitments); err != nil {
		return nil, err
	}
	if v.TTL != 0 {
		b = strconv.AppendInt(append(b, `,"ttl":`...), int64(v.TTL), 10)
	}
	b = jsondoc.AppendOmitEmpty(b, `,"traceparent":`, v.TraceParent)
	return append(b, '}'), nil
}

// appendSeal appends what versions and records say of their chain link
// beside its hashes: the encoding, the seed and the commitments, each
// tagged omitempty.
func appendSeal(b []byte, chain int, seed string, c Commitments) ([]byte, error) {
	if chain != 0 {
		b = strconv.AppendInt(append(b, `,"chain":`...), int64(chain), 10)
	}
	b = jsondoc.AppendOmitEmpty(b, `,"seed":`, seed)
	if len(c) > 0 {
		b = appendCommitments(append(b, `,"commitments":`...), c)
	}
	return b, nil
}

// appendCommitments appends c as json.Marshal encodes the map: its names
// in order, each commitment's properties as its tags say. Every record is
// served with its commitments, all named after committed properties, so
// those names are taken in their order and written as encoded once; a map
// with any other name is written by sorting its own.
func appendCommitments(b []byte, c Commitments) []byte {
	start, written := len(b), 0
	b = append(b, '{')
	for _, k := range committedKeys {
		com, ok := c[k.name]
		if !ok {
			continue
		}
		if written > 0 {
			b = append(b, ',')
		}
		b = appendCommitment(append(b, k.key...), com)
		written++
	}
	if written == len(c) {
		return append(b, '}')
	}
	b = append(b[:start], '{')
	for i, name := range slices.Sorted(maps.Keys(c)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCommitment(append(jsondoc.AppendString(b, name, jsondoc.JSON), ':'), c[name])
	}
	return append(b, '}')
}

// appendCommitment appends com's properties as their tags say.
func appendCommitment(b []byte, com Commitment) []byte {
	b = append(b, '{')
	if com.Salt != "" {
		b = append(jsondoc.AppendMember(b, `"salt":`, com.Salt), ',')
	}
	b = jsondoc.AppendMember(b, `"digest":`, com.Digest)
	if com.Erased {
		b = append(b, `,"erased":true`...)
	}
	return append(b, '}')
}

// committedKeys are the committed properties' names in byte order, each
// with its encoding as a key: what commitments are named after.
var committedKeys = func() []struct{ name, key string } {
	var keys []struct{ name, key string }
	for _, p := range properties {
		if p.Committed() {
			keys = append(keys, struct{ name, key string }{p.Name, string(append(jsondoc.AppendString(nil, p.Name, jsondoc.JSON), ':'))})
		}
	}
	slices.SortFunc(keys, func(a, b struct{ name, key string }) int { return strings.Compare(a.name, b.name) })
	return keys
}()
