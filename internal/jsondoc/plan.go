package jsondoc

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"
)

// Decoding plans: a Decoder reads stored JSON documents of one struct type
// in a single pass, without encoding/json's reflection per value, where
// the point reads and the audit of every write spent most of their
// allocations; what it cannot read exactly as encoding/json would, it
// leaves to encoding/json. A json.RawMessage, a field's or a whole
// document's, is a copy of the value's bytes, as encoding/json gives it.

// Decoder decodes stored documents of type T.
type Decoder[T any] struct {
	p   *plan
	raw bool // T is json.RawMessage: a copy of the document's value
}

// DecoderFor returns the decoder of T's documents. Make it once: it derives its
// plan from T's fields.
func DecoderFor[T any]() Decoder[T] {
	t := reflect.TypeFor[T]()
	return Decoder[T]{p: planFor(t), raw: t == rawType}
}

// Unmarshal decodes doc into *v, zeroed first, giving what json.Unmarshal
// gives: through the plan when it can, else with encoding/json, whose
// error it returns.
func (d Decoder[T]) Unmarshal(doc []byte, v *T) error {
	var zero T
	*v = zero
	if d.raw {
		if b, ok := rawValue(doc); ok {
			reflect.ValueOf(v).Elem().SetBytes(b)
			return nil
		}
	} else if d.p.decode(doc, reflect.ValueOf(v).Elem()) {
		return nil
	}
	*v = zero
	return json.Unmarshal(doc, v)
}

// rawValue returns a copy of the one JSON value doc holds, without the
// white space around it, as encoding/json gives it to a json.RawMessage,
// checked as json.Valid checks it.
func rawValue(doc []byte) ([]byte, bool) {
	start := skipSpace(doc, 0)
	end := validEnd(doc, start, 0)
	if end < 0 || skipSpace(doc, end) != len(doc) {
		return nil, false
	}
	return bytes.Clone(doc[start:end]), true
}

// Unmarshal decodes doc into v as json.Unmarshal does: through the plan of
// v's type (made the first time the type is seen) when v points to a zero
// struct, as a decoder of a request body passes it, else with
// encoding/json.
func Unmarshal(doc []byte, v any) error {
	rv := reflect.ValueOf(v)
	if !pointsToZero(rv) {
		return json.Unmarshal(doc, v)
	}
	e := rv.Elem()
	if plansFor(e.Type()).decode(doc, e) {
		return nil
	}
	e.SetZero()
	return json.Unmarshal(doc, v)
}

// pointsToZero reports whether rv is a pointer to a struct whose bytes
// are all zero, as a zero value's are: a cheap check of what a decoder is
// given, where reflect.Value.IsZero walks each field of a struct that is
// not comparable (an audit record: thousands of instructions a record).
// The zero values it refuses (a float of negative zero, a string of
// length zero that points somewhere) only send a decode to its slower
// path.
func pointsToZero(rv reflect.Value) bool {
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return false
	}
	mem := unsafe.Slice((*byte)(rv.UnsafePointer()), rv.Elem().Type().Size())
	for len(mem) > 0 {
		n := min(len(mem), len(zeros))
		if !bytes.Equal(mem[:n], zeros[:n]) {
			return false
		}
		mem = mem[n:]
	}
	return true
}

// zeros is what pointsToZero compares memory with.
var zeros [1024]byte

// plans caches the plan of each type Unmarshal has seen (nil included).
var plans sync.Map

func plansFor(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	p, _ := plans.LoadOrStore(t, planFor(t))
	return p.(*plan)
}

// A plan decodes stored documents of one struct type (embedded structs
// read as encoding/json reads them, as the outer struct's fields; structs
// in fields through plans of their own). Its property names are the
// struct's json tags, so the fields are still defined once, and every
// string it stores is a slice of one copy of the document.
//
// It reads only what it reads exactly as encoding/json would and gives up
// on anything else: an escaped string, invalid UTF-8, a null, a property
// given twice or in another case, an object or array under an unknown
// name, a number that is not an integer, a property of a kind it does not
// read (a map, a type that decodes itself). The caller then decodes with
// encoding/json, which also reports the errors.
type plan struct {
	names  []string            // property names, by field
	byName map[string]int      // property name to field
	folded map[string]struct{} // property names in lower case
	fields []planField
}

type planField struct {
	index []int // in the struct, for reflect.Value.FieldByIndex
	kind  fieldKind
	sub   *plan // of a kindStruct field
}

type fieldKind uint8

const (
	kindString fieldKind = iota + 1
	kindBool
	kindInt
	kindTime
	kindTimePointer
	kindStrings
	kindStruct
	// kindRaw is a json.RawMessage: the value's bytes as the document
	// has them.
	kindRaw
	// kindUnread is a field the plan leaves to encoding/json: it gives up
	// on a document that has it, and reads those without it.
	kindUnread
)

var (
	timeType        = reflect.TypeFor[time.Time]()
	timePointerType = reflect.TypeFor[*time.Time]()
	stringsType     = reflect.TypeFor[[]string]()
	rawType         = reflect.TypeFor[json.RawMessage]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// planFor returns the plan of struct type t, or nil (which always gives
// up) when a field of t is of a kind the plan does not read and
// encoding/json writes it into every document of the type.
func planFor(t reflect.Type) *plan {
	if t.Kind() != reflect.Struct || decodesItself(t) {
		return nil
	}
	p := &plan{byName: make(map[string]int, t.NumField()), folded: make(map[string]struct{}, t.NumField())}
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" && !decodesItself(f.Type) {
			continue // an embedded struct: encoding/json reads its fields as the struct's own
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		_, dup := p.byName[name]
		if dup || !f.IsExported() || f.Anonymous || !plainName(name) || strings.Contains(","+opts+",", ",string,") {
			return nil
		}
		field := planField{index: f.Index, kind: kindOf(f.Type)}
		if field.kind == kindStruct {
			if field.sub = planFor(f.Type); field.sub == nil {
				field.kind = kindUnread
			}
		}
		if field.kind == kindUnread && !omittable(f.Type, opts) {
			// encoding/json writes it into every document of the type,
			// so the plan would give up on each after a wasted read.
			return nil
		}
		p.byName[name] = len(p.fields)
		p.folded[strings.ToLower(name)] = struct{}{}
		p.names = append(p.names, name)
		p.fields = append(p.fields, field)
	}
	if len(p.fields) > 64 { // decode keeps the fields it has seen in a uint64
		return nil
	}
	return p
}

func kindOf(t reflect.Type) fieldKind {
	switch t {
	case timeType:
		return kindTime
	case timePointerType:
		return kindTimePointer
	case stringsType:
		return kindStrings
	case rawType:
		return kindRaw
	}
	if decodesItself(t) {
		return kindUnread
	}
	switch t.Kind() {
	case reflect.String:
		return kindString
	case reflect.Bool:
		return kindBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return kindInt
	case reflect.Struct:
		return kindStruct
	}
	return kindUnread
}

// decodesItself reports whether encoding/json would hand values of t to
// their own UnmarshalJSON or UnmarshalText.
func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(jsonUnmarshaler) || p.Implements(jsonUnmarshaler) ||
		t.Implements(textUnmarshaler) || p.Implements(textUnmarshaler)
}

// plainName reports whether a property name is ASCII letters, digits and
// underscores only, which encoding/json takes as written.
func plainName(s string) bool {
	for i := range len(s) {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return s != ""
}

// decode fills v, an addressable zero value of the plan's type, from doc,
// reporting whether it could. When it could not, v may be partly filled.
func (p *plan) decode(doc []byte, v reflect.Value) bool {
	if p == nil {
		return false
	}
	r := reader{s: string(doc)}
	if !p.object(&r, v) {
		return false
	}
	r.space()
	return r.i == len(r.s)
}

// object reads one object of the plan's type into v.
func (p *plan) object(r *reader, v reflect.Value) bool {
	if !r.next('{') {
		return false
	}
	r.depth++
	ok := p.members(r, v)
	r.depth--
	return ok
}

// members reads the members of an object of the plan's type into v, up
// to its closing brace.
func (p *plan) members(r *reader, v reflect.Value) bool {
	if !r.next('}') {
		var seen uint64
		next := 0 // the field expected next: encoding/json writes them in order
		for {
			name, ok := r.str()
			if !ok || !r.next(':') {
				return false
			}
			i, known := next, next < len(p.names) && p.names[next] == name
			if !known {
				i, known = p.byName[name]
			}
			switch {
			case known:
				if seen&(1<<i) != 0 || !p.fields[i].decode(r, v.FieldByIndex(p.fields[i].index)) {
					return false
				}
				seen |= 1 << i
				next = i + 1
			case r.strict || p.folds(name) || !r.skip():
				return false
			}
			if r.next('}') {
				break
			}
			if !r.next(',') {
				return false
			}
		}
	}
	return true
}

// folds reports whether encoding/json might take name for one of the
// plan's properties: it also matches names in another case, folding some
// non-ASCII letters onto ASCII ones.
func (p *plan) folds(name string) bool {
	var buf [64]byte
	if len(name) > len(buf) {
		return true // a long name: left to encoding/json
	}
	for i := range len(name) {
		c := name[i]
		if c >= utf8.RuneSelf {
			return true
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	_, ok := p.folded[string(buf[:len(name)])]
	return ok
}

func (f planField) decode(r *reader, v reflect.Value) bool {
	switch f.kind {
	case kindString:
		s, ok := r.str()
		v.SetString(s)
		return ok
	case kindBool:
		switch {
		case r.literal("true"):
			v.SetBool(true)
		case r.literal("false"):
		default:
			return false
		}
		return true
	case kindInt:
		n, ok := r.integer()
		if !ok || v.OverflowInt(n) {
			return false
		}
		v.SetInt(n)
		return true
	case kindTime:
		return r.time(v.Addr().Interface().(*time.Time))
	case kindTimePointer:
		t := new(time.Time)
		v.Set(reflect.ValueOf(t))
		return r.time(t)
	case kindStrings:
		return r.strings(v.Addr().Interface().(*[]string))
	case kindStruct:
		return f.sub.object(r, v)
	case kindRaw:
		b, ok := r.raw()
		v.SetBytes(b)
		return ok
	}
	return false
}

// omittable reports whether encoding/json leaves a field of type t with
// tag options opts out of some documents: omitzero leaves out a zero
// value, omitempty an empty one, which no struct and no array of
// elements is.
func omittable(t reflect.Type, opts string) bool {
	has := func(o string) bool { return strings.Contains(","+opts+",", ","+o+",") }
	switch {
	case has("omitzero"):
		return true
	case !has("omitempty"):
		return false
	case t.Kind() == reflect.Struct, t.Kind() == reflect.Array && t.Len() > 0:
		return false
	}
	return true
}

// reader reads one document; every string it returns is a slice of s.
type reader struct {
	s string
	i int
	// strict is a strict decode's reader (see decodeStrict); depth is how
	// deeply the objects it is in nest, for the scan of a raw value.
	strict bool
	depth  int
}

func (r *reader) space() {
	for r.i < len(r.s) {
		switch r.s[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// next consumes c, after white space, if it comes next.
func (r *reader) next(c byte) bool {
	r.space()
	if r.i < len(r.s) && r.s[r.i] == c {
		r.i++
		return true
	}
	return false
}

// literal consumes lit, after white space, if it comes next.
func (r *reader) literal(lit string) bool {
	r.space()
	if strings.HasPrefix(r.s[r.i:], lit) {
		r.i += len(lit)
		return true
	}
	return false
}

// str reads a string that encoding/json would take as written: no escape,
// no control character, valid UTF-8.
func (r *reader) str() (string, bool) {
	if !r.next('"') {
		return "", false
	}
	start, ascii := r.i, true
	for r.i += Plain(r.s[r.i:], Slog); r.i < len(r.s); r.i++ {
		switch c := r.s[r.i]; {
		case c == '"':
			s := r.s[start:r.i]
			r.i++
			return s, ascii || utf8.ValidString(s)
		case c == '\\' || c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// integerPart consumes -?(0|[1-9][0-9]*), the integer part of a number.
func (r *reader) integerPart() bool {
	if r.i < len(r.s) && r.s[r.i] == '-' {
		r.i++
	}
	start := r.i
	for r.i < len(r.s) && '0' <= r.s[r.i] && r.s[r.i] <= '9' {
		r.i++
		if r.s[start] == '0' {
			break
		}
	}
	return r.i > start
}

// digits consumes one or more decimal digits.
func (r *reader) digits() bool {
	start := r.i
	for r.i < len(r.s) && '0' <= r.s[r.i] && r.s[r.i] <= '9' {
		r.i++
	}
	return r.i > start
}

// integer reads a number without fraction or exponent.
func (r *reader) integer() (int64, bool) {
	r.space()
	start := r.i
	if !r.integerPart() {
		return 0, false
	}
	if r.i < len(r.s) && strings.IndexByte(".eE", r.s[r.i]) >= 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(r.s[start:r.i], 10, 64)
	return n, err == nil
}

// time reads a string into t as encoding/json does: through the time's
// own UnmarshalJSON.
func (r *reader) time(t *time.Time) bool {
	r.space()
	start := r.i
	if _, ok := r.str(); !ok {
		return false
	}
	var buf [64]byte
	return t.UnmarshalJSON(append(buf[:0], r.s[start:r.i]...)) == nil
}

// strings reads an array of strings into *dst, allocating it once.
func (r *reader) strings(dst *[]string) bool {
	if !r.next('[') {
		return false
	}
	var buf [8]string
	got := buf[:0]
	if !r.next(']') {
		for {
			s, ok := r.str()
			if !ok {
				return false
			}
			got = append(got, s)
			if r.next(']') {
				break
			}
			if !r.next(',') {
				return false
			}
		}
	}
	*dst = make([]string, len(got))
	copy(*dst, got)
	return true
}

// raw reads one value of any kind and returns a copy of its bytes: a
// valid one as json.Valid has it, or in a strict decode a strict one (see
// Check), at the depth CheckFor would scan it.
func (r *reader) raw() ([]byte, bool) {
	r.space()
	start, end := r.i, -1
	doc := unsafe.Slice(unsafe.StringData(r.s), len(r.s)) // only read
	if r.strict {
		s := scanner{data: doc, pos: start, depth: r.depth}
		if s.value(nil) == nil {
			end = s.pos
		}
	} else {
		end = validEnd(doc, start, r.depth)
	}
	if end < 0 {
		return nil, false
	}
	r.i = end
	return []byte(r.s[start:end]), true
}

// skip reads the value of a property the plan does not know: a string
// (escapes allowed), a number or a literal.
func (r *reader) skip() bool {
	r.space()
	if r.i == len(r.s) {
		return false
	}
	switch c := r.s[r.i]; {
	case c == '"':
		return r.skipString()
	case c == '-' || '0' <= c && c <= '9':
		return r.skipNumber()
	}
	return r.literal("true") || r.literal("false") || r.literal("null")
}

func (r *reader) skipString() bool {
	for r.i++; r.i < len(r.s); r.i++ {
		r.i += Plain(r.s[r.i:], Slog) // the bytes that need no escape, eight at a time
		if r.i == len(r.s) {
			return false
		}
		switch c := r.s[r.i]; {
		case c == '"':
			r.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			r.i++
			if r.i == len(r.s) {
				return false
			}
			switch r.s[r.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if r.i+4 >= len(r.s) {
					return false
				}
				for _, h := range r.s[r.i+1 : r.i+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false
					}
				}
				r.i += 4
			default:
				return false
			}
		}
	}
	return false
}

// skipNumber consumes a number as JSON writes them.
func (r *reader) skipNumber() bool {
	if !r.integerPart() {
		return false
	}
	if r.i < len(r.s) && r.s[r.i] == '.' {
		r.i++
		if !r.digits() {
			return false
		}
	}
	if r.i < len(r.s) && (r.s[r.i] == 'e' || r.s[r.i] == 'E') {
		r.i++
		if r.i < len(r.s) && (r.s[r.i] == '+' || r.s[r.i] == '-') {
			r.i++
		}
		if !r.digits() {
			return false
		}
	}
	return true
}
