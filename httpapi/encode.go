package httpapi

import (
	"fmt"
	"reflect"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/todoaudit/todo"
)

// appendTodo appends the API view of t as JSON: every property of
// todo.Todo the API shows (todo.Property.Shown), in declaration order, the
// bytes encoding/json would give. The property encoders are built once from
// the struct tags, so a field added to todo.Todo is encoded without a change
// here, and a point read encodes with no reflection per property beyond
// reading the field (it spends a good part of its time encoding).
func appendTodo(b []byte, t *todo.Todo) []byte {
	v := reflect.ValueOf(t).Elem()
	b = append(b, '{')
	first := true
	for i := range viewEncoders {
		e := &viewEncoders[i]
		f := v.FieldByIndex(e.index)
		if e.omitEmpty && emptyValue(f) {
			continue
		}
		if first {
			b = append(b, e.key[1:]...)
			first = false
		} else {
			b = append(b, e.key...)
		}
		b = e.value(b, f)
	}
	return append(b, '}')
}

// propertyEncoder writes one property of the API view.
type propertyEncoder struct {
	index     []int
	key       string // ,"name":
	omitEmpty bool
	value     func(b []byte, v reflect.Value) []byte
}

var viewEncoders = newViewEncoders()

func newViewEncoders() []propertyEncoder {
	var out []propertyEncoder
	for _, p := range todo.Properties() {
		if !p.Shown() {
			continue
		}
		value, err := valueEncoder(p.Type)
		if err != nil {
			panic(fmt.Sprintf("httpapi: todo property %s: %v", p.Name, err))
		}
		key := string(appendString([]byte{','}, p.Name)) + ":"
		out = append(out, propertyEncoder{index: p.Index, key: key, omitEmpty: p.OmitEmpty, value: value})
	}
	return out
}

// emptyValue reports whether encoding/json's omitempty leaves v out.
func emptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String, reflect.Slice, reflect.Map, reflect.Array:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// valueEncoder returns the JSON encoder of values of type t, for the types
// a todo's properties have.
func valueEncoder(t reflect.Type) (func(b []byte, v reflect.Value) []byte, error) {
	switch {
	case t == reflect.TypeFor[time.Time]():
		return func(b []byte, v reflect.Value) []byte { return appendTime(b, *v.Addr().Interface().(*time.Time)) }, nil
	case t == reflect.TypeFor[*time.Time]():
		return func(b []byte, v reflect.Value) []byte {
			if v.IsNil() {
				return append(b, "null"...)
			}
			return appendTime(b, *v.Interface().(*time.Time))
		}, nil
	}
	switch t.Kind() {
	case reflect.String:
		return func(b []byte, v reflect.Value) []byte { return appendString(b, v.String()) }, nil
	case reflect.Bool:
		return func(b []byte, v reflect.Value) []byte { return strconv.AppendBool(b, v.Bool()) }, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(b []byte, v reflect.Value) []byte { return strconv.AppendInt(b, v.Int(), 10) }, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(b []byte, v reflect.Value) []byte { return strconv.AppendUint(b, v.Uint(), 10) }, nil
	case reflect.Slice:
		item, err := valueEncoder(t.Elem())
		if err != nil {
			return nil, err
		}
		return func(b []byte, v reflect.Value) []byte {
			if v.IsNil() {
				return append(b, "null"...)
			}
			b = append(b, '[')
			for i := range v.Len() {
				if i > 0 {
					b = append(b, ',')
				}
				b = item(b, v.Index(i))
			}
			return append(b, ']')
		}, nil
	}
	return nil, fmt.Errorf("no JSON encoder for %s: add one to valueEncoder", t)
}

func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, escaped as encoding/json does
// (including <, >, & and U+2028/U+2029; invalid UTF-8 becomes U+FFFD).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
