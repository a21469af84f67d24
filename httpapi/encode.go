package httpapi

import (
	"fmt"
	"reflect"
	"strconv"
	"time"
	"unsafe"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/jsonstr"
)

// appendTodo appends the API view of t as JSON: every property of
// todo.Todo the API shows (todo.Property.Shown), in declaration order, the
// bytes encoding/json would give. Its property encoders are derived once
// from the struct tags, so a field added to todo.Todo is encoded with no
// change here. A point read spends a good part of its time encoding, so
// each property is read at its offset in the struct and written by a
// direct call: reflection (reflect.ValueOf) or calls through function
// values would make t escape, and every answer allocate its todo.
func appendTodo(b []byte, t *todo.Todo) []byte {
	base := unsafe.Pointer(t)
	b = append(b, '{')
	first := true
	for i := range viewEncoders {
		e := &viewEncoders[i]
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

// propertyEncoder writes one property of the API view.
type propertyEncoder struct {
	offset    uintptr // in todo.Todo
	key       string  // ,"name":
	omitEmpty bool
	kind      valueKind
}

var viewEncoders = newViewEncoders()

func newViewEncoders() []propertyEncoder {
	var out []propertyEncoder
	for _, p := range todo.Properties() {
		if !p.Shown() {
			continue
		}
		k := kindOf(p.Type)
		if k == 0 {
			panic(fmt.Sprintf("httpapi: todo property %s is a %s, which appendTodo cannot encode: add its kind to kindOf and appendValue", p.Name, p.Type))
		}
		var offset uintptr
		t := reflect.TypeFor[todo.Todo]()
		for _, i := range p.Index {
			f := t.Field(i)
			offset, t = offset+f.Offset, f.Type
		}
		key := string(appendString([]byte{','}, p.Name)) + ":"
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
		return appendString(b, *(*string)(p))
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
			b = append(b, '[')
			for i, tag := range tags {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendString(b, tag)
			}
			return append(b, ']')
		}
	}
	return append(b, "null"...)
}

func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// appendString appends s as a JSON string, escaped as encoding/json does.
func appendString(b []byte, s string) []byte { return jsonstr.Append(b, s, jsonstr.JSON) }
