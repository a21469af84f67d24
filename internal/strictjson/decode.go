package strictjson

import (
	"bytes"
	"encoding"
	"encoding/json"
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

// Unmarshal decodes data into v, a pointer to a struct, strictly: data is
// one strict JSON value (see Check), and the name of every member of every
// object in it, nested ones included, is exactly the JSON name of a field
// of the struct it decodes into (maps take any names). Other errors are
// encoding/json's, with unknown fields disallowed.
func Unmarshal(data []byte, v any) error {
	if _, err := Check(data); err != nil {
		return err
	}
	if err := exactNames(data, reflect.TypeOf(v)); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// exactNames checks the member names of data, a JSON value Check accepted,
// against type t. Values of another shape than t are left for
// encoding/json to refuse.
func exactNames(data []byte, t reflect.Type) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return nil
	}
	data = bytes.TrimLeft(data, " \t\r\n")
	switch {
	case len(data) == 0:
		return nil
	case data[0] == '[' && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
		var items []json.RawMessage
		if json.Unmarshal(data, &items) != nil {
			return nil
		}
		for _, it := range items {
			if err := exactNames(it, t.Elem()); err != nil {
				return err
			}
		}
	case data[0] == '{' && (t.Kind() == reflect.Struct || t.Kind() == reflect.Map):
		var members map[string]json.RawMessage
		if json.Unmarshal(data, &members) != nil {
			return nil
		}
		fields := fieldsOf(t)
		for name, value := range members {
			var ft reflect.Type
			if t.Kind() == reflect.Map {
				ft = t.Elem()
			} else if ft = fields[name]; ft == nil {
				return &UnknownMemberError{Name: name}
			}
			if err := exactNames(value, ft); err != nil {
				return err
			}
		}
	}
	return nil
}

var fieldsByType sync.Map // reflect.Type → map[string]reflect.Type

// fieldsOf maps the JSON names of struct type t's fields (those of
// embedded structs without a name of their own included, as encoding/json
// promotes them) to their types; nil for other types.
func fieldsOf(t reflect.Type) map[string]reflect.Type {
	if t.Kind() != reflect.Struct {
		return nil
	}
	if m, ok := fieldsByType.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	m := map[string]reflect.Type{}
	for _, f := range reflect.VisibleFields(t) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			// promoted: its own fields are listed by VisibleFields
		case name == "":
			m[f.Name] = f.Type
		default:
			m[name] = f.Type
		}
	}
	fieldsByType.Store(t, m)
	return m
}
