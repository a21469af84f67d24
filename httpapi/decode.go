package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"
	"sync"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/clip"
	"github.com/todoaudit/todo/internal/strictjson"
)

// decodeBody reads a JSON request body into v, a pointer to a struct,
// strictly: within the size limit, one JSON object and nothing after it,
// valid UTF-8 without lone surrogate escapes (encoding/json would silently
// replace both), no member given twice (encoding/json would keep the last)
// and every member name exactly one of v's fields (encoding/json would
// match them case-insensitively).
func decodeBody(r *http.Request, limit int64, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return todo.Errorf(todo.UnsupportedMediaType, "send the body as application/json")
		}
	}
	if r.ContentLength > limit {
		return todo.Errorf(todo.TooLarge, "request body is larger than %d bytes", limit)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return todo.Wrap(todo.Invalid, err, "request body could not be read")
	}
	if int64(len(body)) > limit {
		return todo.Errorf(todo.TooLarge, "request body is larger than %d bytes", limit)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return todo.Errorf(todo.Invalid, "request body is empty; send a JSON object")
	}
	names, err := strictjson.Check(body)
	if err != nil {
		return todo.Errorf(todo.Invalid, "request body is not valid: %s", err.Error())
	}
	if err := exactNames(names, v); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if dec.More() {
		return todo.Errorf(todo.Invalid, "request body has data after the JSON object")
	}
	return nil
}

// exactNames refuses a member name that is not exactly the JSON name of one
// of v's fields.
func exactNames(names []string, v any) error {
	known := jsonNames(reflect.TypeOf(v).Elem())
	for _, n := range names {
		if !known[n] {
			return todo.Errorf(todo.Invalid, "unknown field %q (field names are case-sensitive)", clip.String(n))
		}
	}
	return nil
}

var namesOf sync.Map // reflect.Type → map[string]bool

// jsonNames returns the JSON names of a struct type's fields.
func jsonNames(t reflect.Type) map[string]bool {
	if m, ok := namesOf.Load(t); ok {
		return m.(map[string]bool)
	}
	m := map[string]bool{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
		case name == "":
			m[f.Name] = true
		default:
			m[name] = true
		}
	}
	namesOf.Store(t, m)
	return m
}

// jsonError turns a decoding error into a message a caller can act on.
func jsonError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return todo.Errorf(todo.Invalid, "request body is not valid JSON (at byte %d)", syn.Offset)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return todo.Errorf(todo.Invalid, "request body must be a JSON object")
		}
		return todo.Errorf(todo.Invalid, "field %q must be %s", typ.Field, jsonKind(typ.Type.Kind().String()))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return todo.Errorf(todo.Invalid, "request body is truncated JSON")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return todo.Errorf(todo.Invalid, "unknown field %s", clip.String(strings.TrimPrefix(err.Error(), "json: unknown field ")))
	}
	return todo.Errorf(todo.Invalid, "request body is not valid: %s", strings.TrimPrefix(err.Error(), "json: "))
}

func jsonKind(goKind string) string {
	switch goKind {
	case "bool":
		return "a boolean"
	case "string":
		return "a string"
	case "slice":
		return "an array"
	case "struct", "map", "ptr":
		return "an object"
	}
	if strings.HasPrefix(goKind, "int") || strings.HasPrefix(goKind, "float") || strings.HasPrefix(goKind, "uint") {
		return "a number"
	}
	return fmt.Sprintf("of type %s", goKind)
}
