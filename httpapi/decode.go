package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/clip"
	"github.com/todoaudit/todo/internal/jsondoc"
)

// decodeBody reads a JSON request body into v, a pointer to a struct,
// strictly (jsondoc.UnmarshalStrict): within the size limit, one JSON object
// and nothing after it, valid UTF-8 without lone surrogate escapes
// (encoding/json would silently replace both), no member given twice
// (encoding/json would keep the last) and every member name exactly one of
// v's fields (encoding/json would match them case-insensitively).
// It returns the body as read.
func decodeBody(r *http.Request, limit int64, v any) ([]byte, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, params, err := mime.ParseMediaType(ct)
		charset, named := params["charset"]
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) || named && !strings.EqualFold(charset, "utf-8") {
			return nil, todo.Errorf(todo.UnsupportedMediaType, "send the body as application/json, in UTF-8")
		}
	}
	body, err := readBody(r, limit)
	if err != nil {
		return nil, err
	}
	if err := decodeJSON(body, v); err != nil {
		return body, err
	}
	if name := nullMember(body); name != "" {
		return body, todo.Errorf(todo.Invalid, "%s is null: leave a member out to leave it unset", clip.String(name))
	}
	return body, nil
}

// nullMember names a member of the object body whose value is null, ""
// if none. No request body but a merge patch's takes a null (the contract
// declares none), and decoding would take one as the member left out.
func nullMember(body []byte) string {
	if !bytes.Contains(body, []byte("null")) {
		return ""
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) != nil {
		return ""
	}
	for _, name := range slices.Sorted(maps.Keys(members)) {
		if string(members[name]) == "null" {
			return name
		}
	}
	return ""
}

// readBody reads a request body within the size limit, refusing an empty
// one.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, todo.Errorf(todo.TooLarge, "request body is larger than %d bytes", limit)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, todo.Wrap(todo.Invalid, err, "request body could not be read")
	}
	if int64(len(body)) > limit {
		return nil, todo.Errorf(todo.TooLarge, "request body is larger than %d bytes", limit)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, todo.Errorf(todo.Invalid, "request body is empty; send a JSON object")
	}
	return body, nil
}

// decodeJSON decodes body into v, a pointer to a struct, as strictly as
// decodeBody says (jsondoc.UnmarshalStrict): checked, then decoded through a
// plan of v's type where it can.
func decodeJSON(body []byte, v any) error {
	var unknown *jsondoc.UnknownMemberError
	var strict *jsondoc.StrictError
	var when *time.ParseError
	err := jsondoc.UnmarshalStrict(body, v)
	switch {
	case errors.As(err, &when):
		name, dated := datesAsTimes(body, when.Value)
		if dated != nil {
			return decodeJSON(dated, v)
		}
		return todo.Errorf(todo.Invalid, "%s must be %s", name, timeForms)
	case errors.As(err, &unknown):
		return unknownField(unknown.Name)
	case errors.As(err, &strict):
		return todo.Errorf(todo.Invalid, "request body is not valid: %s", strict.Error())
	case err != nil:
		// A time refuses a value that is no string in its own words,
		// naming no field.
		if name := timeNotString(body, reflect.TypeOf(v).Elem()); name != "" {
			return todo.Errorf(todo.Invalid, "%s must be %s", name, timeForms)
		}
		return jsonError(err)
	}
	return nil
}

// timeNotString names the member of body (an object decoding into a
// struct of type t) that a time field would take and whose value is
// neither a string nor null, "" if none.
func timeNotString(body []byte, t reflect.Type) string {
	var members map[string]json.RawMessage
	if t.Kind() != reflect.Struct || json.Unmarshal(body, &members) != nil {
		return ""
	}
	for _, f := range reflect.VisibleFields(t) {
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if ft != reflect.TypeFor[time.Time]() || name == "" || name == "-" {
			continue
		}
		if raw, ok := members[name]; ok && raw[0] != '"' && string(raw) != "null" {
			return name
		}
	}
	return ""
}

// unknownField refuses a member of a body that names no field.
func unknownField(name string) error {
	return todo.Errorf(todo.Invalid, "unknown field %q (field names are case-sensitive)", clip.String(name))
}

// timeForms says how a time is written, in a body as in a query.
const timeForms = "an RFC 3339 time or a date, such as 2026-12-10T15:04:05Z or 2026-12-10"

// datesAsTimes finds the member of body whose string value is bad, the
// value a time failed to parse. When it is a date alone, which the API
// takes as midnight UTC as the list filters do, it returns body with that
// date written as a time; else nil.
func datesAsTimes(body []byte, bad string) (name string, dated []byte) {
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) != nil {
		return "a time", nil
	}
	for k, raw := range members {
		var s string
		if json.Unmarshal(raw, &s) != nil || s != bad {
			continue
		}
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return k, nil
		}
		members[k], _ = json.Marshal(d) // a time in 1-9999 always encodes
		b, err := json.Marshal(members)
		if err != nil {
			return k, nil
		}
		return k, b
	}
	return "a time", nil
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
