package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"slices"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/jsondoc"
)

// mergePatchType is the media type of a JSON Merge Patch (RFC 7396), the
// only body PATCH takes.
const mergePatchType = "application/merge-patch+json"

// readOnly are the properties of the API view a patch may not name: the
// server sets them.
var readOnly = propertyNames(func(p *todo.Property) bool { return p.Shown() && !p.Editable })

// shown are the properties of the API view, the only names a patch may
// hold: any other would be dropped by the merge when null, and refused by
// the decoding of the result otherwise.
var shown = propertyNames((*todo.Property).Shown)

// required are the properties a patch may not remove with null: the
// user-editable ones a todo always has.
var required = propertyNames(func(p *todo.Property) bool { return p.Editable && !p.OmitEmpty })

// propertyNames are the JSON names of the todo's properties for which keep
// is true, in their order.
func propertyNames(keep func(p *todo.Property) bool) []string {
	var out []string
	for _, p := range todo.Properties() {
		if keep(&p) {
			out = append(out, p.Name)
		}
	}
	return out
}

// patch applies a JSON Merge Patch to the API view of the caller's todo
// and stores the result as an update, validated exactly as a PUT body.
func (a *api) patch(ctx context.Context, w http.ResponseWriter, r *http.Request, id string) error {
	match, err := ifMatch(r)
	if err != nil {
		return err
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != mergePatchType {
		return todo.Errorf(todo.UnsupportedMediaType, "send the patch as %s (RFC 7396)", mergePatchType)
	}
	body, err := readBody(r, a.MaxBodyBytes)
	if err != nil {
		return err
	}
	if err := checkMergePatch(body); err != nil {
		return err
	}
	res, err := a.Service.Patch(ctx, id, match, func(t todo.Todo) (todo.Fields, error) {
		merged, err := jsonpatch.MergePatch(t.AppendView(nil), body)
		if err != nil {
			return todo.Fields{}, todo.Wrap(todo.Invalid, err, "the merge patch does not apply")
		}
		return editable(merged)
	})
	return answer(w, http.StatusOK, res, err)
}

// checkMergePatch refuses a patch that is not one strict JSON object, or
// that names a property the view does not have or a read-only one, or
// removes a required one.
func checkMergePatch(body []byte) error {
	if _, err := jsondoc.Check(body); err != nil {
		return todo.Errorf(todo.Invalid, "request body is not valid: %s", err.Error())
	}
	if bytes.TrimSpace(body)[0] != '{' {
		return todo.Errorf(todo.Invalid, "a merge patch must be a JSON object")
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return jsonError(err)
	}
	for name := range members {
		if !slices.Contains(shown, name) {
			return unknownField(name)
		}
	}
	for _, name := range readOnly {
		if _, ok := members[name]; ok {
			return todo.Errorf(todo.Invalid, "%s cannot be changed", name)
		}
	}
	for _, name := range required {
		if v, ok := members[name]; ok && bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			return todo.Errorf(todo.Invalid, "%s cannot be removed", name)
		}
	}
	return nil
}

// editable decodes the user-editable part of a patched API view as a PUT
// body is decoded, leaving out the read-only properties it still carries.
func editable(view []byte) (todo.Fields, error) {
	var in todo.Fields
	var members map[string]json.RawMessage
	if err := json.Unmarshal(view, &members); err != nil {
		return in, todo.Wrap(todo.Internal, err, "patched todo does not decode")
	}
	for _, name := range readOnly {
		delete(members, name)
	}
	b, err := json.Marshal(members)
	if err != nil {
		return in, todo.Wrap(todo.Internal, err, "patched todo does not encode")
	}
	return in, decodeJSON(b, &in)
}
