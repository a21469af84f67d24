package apitest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// mergePatch is the Content-Type header of a JSON Merge Patch.
const mergePatch = "Content-Type: application/merge-patch+json"

// Patch covers PATCH with a JSON Merge Patch: members it names change, the
// others stay, null removes an optional field, read-only and required
// fields are refused, the category is a move where the scheme keys on it,
// If-Match is honoured, any other media type is 415, and each patch is one
// audited update. settle must bring the audit history up to date.
func Patch(t *testing.T, c *Client, scheme string, settle func()) {
	full := map[string]any{"category": "Grocery", "title": "milk", "notes": "two litres",
		"dueDate": "2026-12-24T18:00:00Z", "tags": []string{"dairy", "weekly"}}
	r := Want(t, c.Do("POST", "/api/todos", full), 201)
	created := r.JSON(t)
	id := created["id"].(string)
	path := "/api/todos/" + id

	done := Want(t, c.Do("PATCH", path, `{"isCompleted":true}`, mergePatch), 200)
	got := done.JSON(t)
	for _, k := range []string{"title", "notes", "dueDate", "tags", "category", "createdAt"} {
		if !reflect.DeepEqual(got[k], created[k]) {
			t.Fatalf("patching isCompleted changed %s: %v, was %v", k, got[k], created[k])
		}
	}
	if got["isCompleted"] != true || got["version"] != 2.0 || done.Header.Get("ETag") == r.Header.Get("ETag") {
		t.Fatalf("patch isCompleted: %v %s", done.Header, done.Body)
	}

	cleared := Want(t, c.Do("PATCH", path, `{"notes":null,"dueDate":null,"tags":null,"title":"oat milk"}`, mergePatch), 200).JSON(t)
	for _, k := range []string{"notes", "dueDate", "tags"} {
		if _, ok := cleared[k]; ok {
			t.Fatalf("null did not remove %s: %v", k, cleared)
		}
	}
	if cleared["title"] != "oat milk" || cleared["isCompleted"] != true || cleared["version"] != 3.0 {
		t.Fatalf("patch with nulls: %v", cleared)
	}
	tagged := Want(t, c.Do("PATCH", path, `{"tags":["a","b"],"notes":"n"}`, mergePatch), 200).JSON(t)
	if !reflect.DeepEqual(tagged["tags"], []any{"a", "b"}) || tagged["notes"] != "n" {
		t.Fatalf("patch tags: %v", tagged)
	}
	etag := Want(t, c.Do("GET", path, nil), 200).Header.Get("ETag")

	for _, bad := range []struct{ body, says string }{
		{`{"id":"Grocery:x"}`, "id cannot be changed"},
		{`{"userId":"bob"}`, "userId cannot be changed"},
		{`{"version":1}`, "version cannot be changed"},
		{`{"createdAt":"2020-01-01T00:00:00Z"}`, "createdAt cannot be changed"},
		{`{"updatedAt":null}`, "updatedAt cannot be changed"},
		{`{"title":null}`, "title cannot be removed"},
		{`{"category":null}`, "category cannot be removed"},
		{`{"title":"  "}`, "title is required"},
		{`{"owner":"bob"}`, "unknown field"},
		{`{"Title":"x"}`, "unknown field"},
		{`{"tags":"x"}`, "tags"},
		{`{"dueDate":"tomorrow"}`, ""},
		{`{"dueDate":5}`, "dueDate must be an RFC 3339 time"},
		// A null removes a member, but only one the view has: naming
		// any other is refused, not dropped into a version that changes
		// nothing.
		{`{"foo":null}`, "unknown field"},
		{`{"owner":null}`, "unknown field"},
		{`{"type":null}`, "unknown field"},
		{`{"Title":null}`, "unknown field"},
		{`{"hash":null,"title":"p"}`, "unknown field"},
		{`["title"]`, "JSON object"},
		{`{"title":"a","title":"b"}`, ""},
	} {
		p := Want(t, c.Do("PATCH", path, bad.body, mergePatch), 400)
		if !strings.Contains(string(p.Body), bad.says) || p.Header.Get("Content-Type") != "application/problem+json" {
			t.Fatalf("PATCH %s: %s, want it to say %q", bad.body, p.Body, bad.says)
		}
	}
	for _, ct := range []string{"Content-Type: application/json", "Content-Type: application/json-patch+json", "Content-Type: text/plain"} {
		Want(t, c.Do("PATCH", path, `{"title":"x"}`, ct), 415)
	}
	Want(t, c.Do("PATCH", path, `{"title":"x"}`, "If-Match: "+`"stale"`, mergePatch), 412)
	if now := Want(t, c.Do("GET", path, nil), 200); now.Header.Get("ETag") != etag {
		t.Fatalf("a refused patch changed the todo: %s", now.Body)
	}

	moved := Want(t, c.Do("PATCH", path, `{"category":"Household"}`, "If-Match: "+etag, mergePatch), map[bool]int{true: 200, false: 409}[scheme == "synthetic"])
	if scheme != "synthetic" && !strings.Contains(string(moved.Body), "/move") {
		t.Fatalf("a category patch under %s does not point to move: %s", scheme, moved.Body)
	}
	Want(t, c.Do("PATCH", path, `{"title":"with If-Match"}`, "If-Match: "+etag, mergePatch), map[bool]int{true: 412, false: 200}[scheme == "synthetic"])
	Want(t, c.As(c.User+"-other").Do("PATCH", path, `{"title":"x"}`, mergePatch), 404)
	Want(t, c.Do("PATCH", "/api/todos/"+strings.Replace(id, id[len(id)-4:], "0000", 1), `{"title":"x"}`, mergePatch), 404)

	settle()
	var h struct {
		Items []struct {
			Version   int64
			Operation string
			Entity    json.RawMessage
		}
	}
	if err := json.Unmarshal(Want(t, c.Do("GET", path+"/history", nil), 200).Body, &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Items) != 5 {
		t.Fatalf("history after four patches: %d versions, want 5", len(h.Items))
	}
	for _, it := range h.Items[1:] {
		if it.Operation != "update" {
			t.Fatalf("a patch is audited as %q, want update", it.Operation)
		}
	}
}
