package jsondoc

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// UnknownMemberError is a member name that is not exactly the JSON name of
// a field of the struct it would decode into; encoding/json would have
// matched it case-insensitively or dropped it.
type UnknownMemberError struct {
	Name string
}

func (e *UnknownMemberError) Error() string {
	return fmt.Sprintf("unknown member %q (member names are case-sensitive)", e.Name)
}

// UnmarshalStrict decodes data into v, a pointer to a struct, strictly: data is
// one strict JSON value (see Check), and the name of every member of every
// object in it, nested ones included, is exactly the JSON name of a field
// of the struct it decodes into (maps take any names). A document the plan
// of v's type reads strictly (see decodeStrict) is decoded in that one
// pass; any other is scanned once for both rules, then decoded in one more
// pass, through the plan where there is one (see Unmarshal), else by
// encoding/json; other errors are encoding/json's.
func UnmarshalStrict(data []byte, v any) error {
	if decodeStrict(data, v) {
		return nil
	}
	if err := CheckFor(data, v); err != nil {
		return err
	}
	return Unmarshal(data, v)
}

// decodeStrict decodes data into v, a pointer to a zero struct, through
// the plan of its type in its strict mode, reporting whether it could. A
// plan only reads what it reads exactly as encoding/json would, and in its
// strict mode only what CheckFor accepts as well: it gives up on a name
// that is not one of its fields' (where it would skip it), and scans each
// raw value with the strict scanner. What it gives up on, v zeroed again,
// is left to CheckFor and Unmarshal, which say what is wrong with it.
func decodeStrict(data []byte, v any) bool {
	rv := reflect.ValueOf(v)
	if !pointsToZero(rv) {
		return false
	}
	e := rv.Elem()
	p := plansFor(e.Type())
	if p == nil {
		return false
	}
	r := reader{s: string(data), strict: true}
	if p.object(&r, e) {
		if r.space(); r.i == len(r.s) {
			return true
		}
	}
	e.SetZero()
	return false
}

// CheckFor reports what UnmarshalStrict refuses before it decodes: a
// *StrictError
// or an *UnknownMemberError. A caller with a faster decoder of v's type
// than encoding/json's checks data with it and then decodes.
func CheckFor(data []byte, v any) error {
	s := &scanner{data: data}
	if _, err := s.top(shapeOf(reflect.TypeOf(v)), false); err != nil {
		return err
	}
	if s.unknown != nil {
		return s.unknown
	}
	return nil
}

// shape is what the scanner needs of a type to match member names: a
// struct's fields by JSON name, or the type of a map's values or a list's
// items. A nil shape takes any value: types that decode themselves, and
// values of another shape than their type, which encoding/json refuses.
type shape struct {
	kind   reflect.Kind
	fields map[string]*shape // a struct's, by JSON name
	elem   *shape            // a map's values, a slice's or an array's items
}

// member is the shape of the value of the member name of an object of
// shape t; a name that is no field of a struct is noted in s.
func (t *shape) member(name []byte, s *scanner) *shape {
	switch {
	case t == nil:
		return nil
	case t.kind == reflect.Map:
		return t.elem
	case t.kind != reflect.Struct:
		return nil
	}
	sh, ok := t.fields[string(name)]
	if !ok && s.unknown == nil {
		s.unknown = &UnknownMemberError{Name: string(name)}
	}
	return sh
}

// item is the shape of the items of a list of shape t.
func (t *shape) item() *shape {
	if t == nil || t.kind != reflect.Slice && t.kind != reflect.Array {
		return nil
	}
	return t.elem
}

var shapes sync.Map // reflect.Type → *shape

// shapeOf returns the shape of type t (see shape), made once per type.
func shapeOf(t reflect.Type) *shape {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if sh, ok := shapes.Load(t); ok {
		return sh.(*shape)
	}
	made := map[reflect.Type]*shape{}
	sh := makeShape(t, made)
	for t, sh := range made {
		shapes.LoadOrStore(t, sh)
	}
	return sh
}

// makeShape makes the shape of t and of the types in it, noting each in
// made, so that a type that contains itself finds its own shape; they are
// published whole, never half made.
func makeShape(t reflect.Type, made map[reflect.Type]*shape) *shape {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return nil
	}
	if sh, ok := made[t]; ok {
		return sh
	}
	sh := &shape{kind: t.Kind()}
	made[t] = sh
	switch t.Kind() {
	case reflect.Map, reflect.Slice, reflect.Array:
		sh.elem = makeShape(t.Elem(), made)
	case reflect.Struct:
		sh.fields = map[string]*shape{} // a nil shape for a field that decodes itself
		for _, f := range reflect.VisibleFields(t) {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case name == "-" || !f.IsExported():
				continue
			case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
				continue // promoted: its own fields are listed by VisibleFields
			case name == "":
				name = f.Name
			}
			sh.fields[name] = makeShape(f.Type, made)
		}
	}
	return sh
}
