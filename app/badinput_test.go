package app_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/todoaudit/todo/azfunc"
)

// Every bad input gets a 4xx problem+json answer, stores nothing and leaves
// the server serving.
func TestBadInput(t *testing.T) {
	s := startApp(t, map[string]string{"MAX_BODY_BYTES": "4096", "ADMIN_USERS": "alice"})
	good := s.Create("Grocery", "milk")
	id := good["id"].(string)
	const uuid = "41500e6e-4e08-495b-9d09-824f03961f4a"
	big := `{"category":"Grocery","title":"` + strings.Repeat("x", 5000) + `"}`

	cases := []struct {
		name, method, path, body string
		headers                  []string
		status                   int
	}{
		{"malformed JSON", "POST", "/api/todos", `{"category":`, nil, 400},
		{"not an object", "POST", "/api/todos", `["Grocery"]`, nil, 400},
		{"trailing data", "POST", "/api/todos", `{"category":"a","title":"b"} {}`, nil, 400},
		{"empty body", "POST", "/api/todos", ``, nil, 400},
		{"wrong type title", "POST", "/api/todos", `{"category":"a","title":7}`, nil, 400},
		{"wrong type isCompleted", "POST", "/api/todos", `{"category":"a","title":"b","isCompleted":"yes"}`, nil, 400},
		{"wrong type tags", "POST", "/api/todos", `{"category":"a","title":"b","tags":"x"}`, nil, 400},
		{"bad dueDate", "POST", "/api/todos", `{"category":"a","title":"b","dueDate":"tomorrow"}`, nil, 400},
		{"unknown field", "POST", "/api/todos", `{"category":"a","title":"b","owner":"bob"}`, nil, 400},
		{"id in body", "POST", "/api/todos", `{"id":"x","category":"a","title":"b"}`, nil, 400},
		{"missing title", "POST", "/api/todos", `{"category":"a"}`, nil, 400},
		{"missing category", "POST", "/api/todos", `{"title":"b"}`, nil, 400},
		{"blank title", "POST", "/api/todos", `{"category":"a","title":"  "}`, nil, 400},
		{"category with /", "POST", "/api/todos", `{"category":"a/b","title":"b"}`, nil, 400},
		{"category with \\", "POST", "/api/todos", `{"category":"a\\b","title":"b"}`, nil, 400},
		{"category with ?", "POST", "/api/todos", `{"category":"a?b","title":"b"}`, nil, 400},
		{"category with #", "POST", "/api/todos", `{"category":"a#b","title":"b"}`, nil, 400},
		{"category with control character", "POST", "/api/todos", `{"category":"a\u0007b","title":"b"}`, nil, 400},
		{"category with trailing space", "POST", "/api/todos", `{"category":"Grocery ","title":"b"}`, nil, 400},
		{"category too long", "POST", "/api/todos", `{"category":"` + strings.Repeat("c", 256) + `","title":"b"}`, nil, 400},
		{"invalid UTF-8", "POST", "/api/todos", "{\"category\":\"a\",\"title\":\"\xff\xfe\"}", nil, 400},
		{"duplicate key", "POST", "/api/todos", `{"category":"a","title":"b","title":"c"}`, nil, 400},
		{"duplicate key spelt with an escape", "POST", "/api/todos", `{"category":"a","title":"b","\u0074itle":"c"}`, nil, 400},
		{"duplicate key in a nested value", "POST", "/api/todos/" + id + "/rollback", `{"version":1,"x":{"a":1,"a":2}}`, nil, 400},
		{"duplicate key in move", "POST", "/api/todos/" + id + "/move", `{"category":"Work","category":"Home"}`, nil, 400},
		{"upper-case field name", "POST", "/api/todos", `{"category":"a","TITLE":"b"}`, nil, 400},
		{"capitalised field name", "POST", "/api/todos", `{"Category":"a","title":"b"}`, nil, 400},
		{"capitalised field in rollback", "POST", "/api/todos/" + id + "/rollback", `{"Version":1}`, nil, 400},
		{"invalid UTF-8 in category", "POST", "/api/todos", "{\"category\":\"a\xc3\",\"title\":\"b\"}", nil, 400},
		{"invalid UTF-8 in a key", "POST", "/api/todos", "{\"category\":\"a\",\"title\":\"b\",\"\xff\":1}", nil, 400},
		{"UTF-8 encoded surrogate", "POST", "/api/todos", "{\"category\":\"a\",\"title\":\"\xed\xa0\x80\"}", nil, 400},
		{"lone high surrogate in title", "POST", "/api/todos", `{"category":"a","title":"\ud800"}`, nil, 400},
		{"lone low surrogate in title", "POST", "/api/todos", `{"category":"a","title":"x\udc00"}`, nil, 400},
		{"reversed surrogate pair", "POST", "/api/todos", `{"category":"a","title":"\udc00\ud800"}`, nil, 400},
		{"lone surrogate in category", "POST", "/api/todos", `{"category":"a\ud800","title":"b"}`, nil, 400},
		{"lone surrogate in notes", "POST", "/api/todos", `{"category":"a","title":"b","notes":"\udbff"}`, nil, 400},
		{"lone surrogate in a tag", "POST", "/api/todos", `{"category":"a","title":"b","tags":["\ud83d"]}`, nil, 400},
		{"lone surrogate in move", "POST", "/api/todos/" + id + "/move", `{"category":"\ud800"}`, nil, 400},
		{"lone surrogate in PUT", "PUT", "/api/todos/" + id, `{"category":"Grocery","title":"\ud800"}`, nil, 400},
		{"control character in a tag", "POST", "/api/todos", `{"category":"a","title":"b","tags":["x\u0007"]}`, nil, 400},
		{"newline in a tag", "POST", "/api/todos", `{"category":"a","title":"b","tags":["x\ny"]}`, nil, 400},
		{"bidi override in category", "POST", "/api/todos", `{"category":"a\u202eb","title":"b"}`, nil, 400},
		{"bidi isolate in category", "POST", "/api/todos", `{"category":"a\u2066b","title":"b"}`, nil, 400},
		{"bidi override in a tag", "POST", "/api/todos", `{"category":"a","title":"b","tags":["\u202egnp.exe"]}`, nil, 400},
		{"left-to-right mark in a tag", "POST", "/api/todos", `{"category":"a","title":"b","tags":["x\u200e"]}`, nil, 400},
		{"zero-width space in category", "POST", "/api/todos", `{"category":"Gro\u200bcery","title":"b"}`, nil, 400},
		{"zero-width joiner in category", "POST", "/api/todos", `{"category":"a\u200db","title":"b"}`, nil, 400},
		{"byte order mark in category", "POST", "/api/todos", `{"category":"\ufeffGrocery","title":"b"}`, nil, 400},
		{"variation selector in category", "POST", "/api/todos", `{"category":"a\ufe0f","title":"b"}`, nil, 400},
		{"combining grapheme joiner in category", "POST", "/api/todos", `{"category":"a\u034fb","title":"b"}`, nil, 400},
		{"zero-width space in a tag", "POST", "/api/todos", `{"category":"a","title":"b","tags":["x\u200by"]}`, nil, 400},
		{"word joiner in a tag", "POST", "/api/todos", `{"category":"a","title":"b","tags":["x\u2060"]}`, nil, 400},
		{"category with %", "POST", "/api/todos", `{"category":"a%2Fb","title":"b"}`, nil, 400},
		{"category with :", "POST", "/api/todos", `{"category":"a:b","title":"b"}`, nil, 400},
		{"category with &", "POST", "/api/todos", `{"category":"a&b","title":"b"}`, nil, 400},
		{"category with =", "POST", "/api/todos", `{"category":"a=b","title":"b"}`, nil, 400},
		{"category with +", "POST", "/api/todos", `{"category":"a+b","title":"b"}`, nil, 400},
		{"category with ,", "POST", "/api/todos", `{"category":"a,b","title":"b"}`, nil, 400},
		{"category with two spaces", "POST", "/api/todos", `{"category":"a  b","title":"b"}`, nil, 400},
		{"category with a tab", "POST", "/api/todos", `{"category":"a\tb","title":"b"}`, nil, 400},
		{"category with a no-break space", "POST", "/api/todos", `{"category":"a\u00a0b","title":"b"}`, nil, 400},
		{"category with an emoji", "POST", "/api/todos", `{"category":"\ud83d\ude00","title":"b"}`, nil, 400},
		{"move to a category with %", "POST", "/api/todos/" + id + "/move", `{"category":"a%2Fb"}`, nil, 400},
		{"list filter with %", "GET", "/api/todos?category=a%252Fb", ``, nil, 400},
		{"dueDate in year 10000 by its offset", "POST", "/api/todos", `{"category":"a","title":"b","dueDate":"9999-12-31T23:59:59-23:59"}`, nil, 400},
		{"dueDate in year -1 by its offset", "POST", "/api/todos", `{"category":"a","title":"b","dueDate":"0000-01-01T00:00:00+01:00"}`, nil, 400},
		{"dueDate in year 0", "POST", "/api/todos", `{"category":"a","title":"b","dueDate":"0000-06-01T00:00:00Z"}`, nil, 400},
		{"dueDate in year 10000", "POST", "/api/todos", `{"category":"a","title":"b","dueDate":"10000-01-01T00:00:00Z"}`, nil, 400},
		{"dueDate in year -1", "POST", "/api/todos", `{"category":"a","title":"b","dueDate":"-0001-01-01T00:00:00Z"}`, nil, 400},
		{"dueDate in year 10000 on PUT", "PUT", "/api/todos/" + id, `{"category":"Grocery","title":"b","dueDate":"9999-12-31T23:00:00-01:00"}`, nil, 400},
		{"malformed path escape", "GET", "/api/todos/%zz", ``, nil, 400},
		{"truncated path escape", "DELETE", "/api/todos/Grocery%2", ``, nil, 400},
		{"malformed escape in history path", "GET", "/api/todos/a%zz:" + uuid + "/history", ``, nil, 400},
		{"oversized body", "POST", "/api/todos", big, nil, 413},
		{"wrong content type", "POST", "/api/todos", `{"category":"a","title":"b"}`, []string{"Content-Type: text/plain"}, 415},
		{"id with encoded /", "GET", "/api/todos/Grocery%2Fx:" + uuid, ``, nil, 400},
		{"id with encoded ?", "GET", "/api/todos/Grocery%3Fx:" + uuid, ``, nil, 400},
		{"id with encoded #", "GET", "/api/todos/Grocery%23x:" + uuid, ``, nil, 400},
		{"id with encoded \\", "GET", "/api/todos/Grocery%5Cx:" + uuid, ``, nil, 400},
		{"id with control character", "GET", "/api/todos/Gro%09cery:" + uuid, ``, nil, 400},
		{"id with leading space", "GET", "/api/todos/%20Grocery:" + uuid, ``, nil, 400},
		{"id without uuid", "GET", "/api/todos/Grocery", ``, nil, 400},
		{"id too long", "GET", "/api/todos/" + strings.Repeat("a", 300) + ":" + uuid, ``, nil, 400},
		{"PUT to invalid id", "PUT", "/api/todos/not-an-id", `{"category":"a","title":"b"}`, nil, 400},
		{"PUT body category differs from id", "PUT", "/api/todos/Grocery:" + uuid, `{"category":"Work","title":"b"}`, nil, 409},
		{"pageSize zero", "GET", "/api/todos?pageSize=0", ``, nil, 400},
		{"pageSize too big", "GET", "/api/todos?pageSize=1001", ``, nil, 400},
		{"pageSize not a number", "GET", "/api/todos?pageSize=ten", ``, nil, 400},
		{"isCompleted not a boolean", "GET", "/api/todos?isCompleted=maybe", ``, nil, 400},
		{"unknown query parameter", "GET", "/api/todos?owner=bob", ``, nil, 400},
		{"malformed continuation", "GET", "/api/todos?continuation=%%%", ``, nil, 400},
		{"forged continuation", "GET", "/api/todos?continuation=eyJwIjo5OSwicSI6IngifQ", ``, nil, 400},
		{"empty continuation", "GET", "/api/todos?continuation=", ``, nil, 400},
		{"malformed If-Match", "PUT", "/api/todos/" + id, `{"category":"Grocery","title":"b"}`, []string{"If-Match: abc"}, 400},
		{"If-Match with two ETags", "DELETE", "/api/todos/" + id, ``, []string{`If-Match: "a", "b"`}, 400},
		{"stale If-Match", "DELETE", "/api/todos/" + id, ``, []string{`If-Match: "0000000000000000"`}, 412},
		{"If-None-Match other than * on PUT", "PUT", "/api/todos/" + id, `{"category":"Grocery","title":"b"}`, []string{`If-None-Match: "abc"`}, 400},
		{"If-Match with If-None-Match", "PUT", "/api/todos/" + id, `{"category":"Grocery","title":"b"}`, []string{"If-Match: *", "If-None-Match: *"}, 400},
		{"If-None-Match: * on an existing todo", "PUT", "/api/todos/" + id, `{"category":"Grocery","title":"b"}`, []string{"If-None-Match: *"}, 412},
		{"asOf not a time", "GET", "/api/todos/" + id + "?asOf=yesterday", ``, nil, 400},
		{"asOf without a zone", "GET", "/api/todos/" + id + "?asOf=2026-01-02T15:04:05", ``, nil, 400},
		{"asOf twice", "GET", "/api/todos/" + id + "?asOf=2026-01-02T15:04:05Z&asOf=2026-01-03T15:04:05Z", ``, nil, 400},
		{"asOf empty", "GET", "/api/todos/" + id + "?asOf=", ``, nil, 400},
		{"verify with a bad id", "GET", "/api/todos/a%5Cb/history/verify", ``, nil, 400},
		{"rollback without version", "POST", "/api/todos/" + id + "/rollback", `{}`, nil, 400},
		{"rollback to version 0", "POST", "/api/todos/" + id + "/rollback", `{"version":0}`, nil, 400},
		{"rollback to missing version", "POST", "/api/todos/" + id + "/rollback", `{"version":99}`, nil, 404},
		{"rollback version as string", "POST", "/api/todos/" + id + "/rollback", `{"version":"1"}`, nil, 400},
		{"move without category", "POST", "/api/todos/" + id + "/move", `{}`, nil, 400},
		{"move to invalid category", "POST", "/api/todos/" + id + "/move", `{"category":"a#b"}`, nil, 400},
		{"diff without to", "GET", "/api/todos/" + id + "/history/diff?from=1", ``, nil, 400},
		{"diff from version 0", "GET", "/api/todos/" + id + "/history/diff?from=0&to=1", ``, nil, 400},
		{"diff to a version not a number", "GET", "/api/todos/" + id + "/history/diff?from=1&to=two", ``, nil, 400},
		{"diff with from twice", "GET", "/api/todos/" + id + "/history/diff?from=1&from=2&to=1", ``, nil, 400},
		{"diff with an unknown parameter", "GET", "/api/todos/" + id + "/history/diff?from=1&to=1&x=1", ``, nil, 400},
		{"diff to a missing version", "GET", "/api/todos/" + id + "/history/diff?from=1&to=99", ``, nil, 404},
		{"activity since not a time", "GET", "/api/activity?since=yesterday", ``, nil, 400},
		{"activity since after until", "GET", "/api/activity?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z", ``, nil, 400},
		{"activity over more than ten years", "GET", "/api/activity?since=2000-01-01T00:00:00Z&until=2026-01-01T00:00:00Z", ``, nil, 400},
		{"activity of an unknown operation", "GET", "/api/activity?operation=erase", ``, nil, 400},
		{"activity of a bad category", "GET", "/api/activity?category=a%23b", ``, nil, 400},
		{"activity of another actor", "GET", "/api/activity?actor=bob", ``, nil, 400},
		{"activity with a forged continuation", "GET", "/api/activity?continuation=x", ``, nil, 400},
		{"activity pageSize too big", "GET", "/api/activity?pageSize=1001", ``, nil, 400},
		{"admin audit without actor or owner", "GET", "/api/manage/audit?operation=create", ``, nil, 400},
		{"admin audit with a bad actor", "GET", "/api/manage/audit?actor=a%2Fb", ``, nil, 400},
		{"admin audit with a bad entityId", "GET", "/api/manage/audit?owner=alice&entityId=a%5Cb", ``, nil, 400},
		{"admin audit with until twice", "GET", "/api/manage/audit?actor=alice&until=2026-01-01T00:00:00Z&until=2026-02-01T00:00:00Z", ``, nil, 400},
		{"admin audit by a user", "GET", "/api/manage/audit?actor=alice", ``, []string{"X-User-Id: bob"}, 403},
		{"hold without a reason", "POST", "/api/manage/holds", `{"userId":"bob"}`, nil, 400},
		{"hold with a blank reason", "POST", "/api/manage/holds", `{"userId":"bob","reason":"  "}`, nil, 400},
		{"hold of a user and a todo", "POST", "/api/manage/holds", `{"userId":"bob","todoId":"` + id + `","reason":"x"}`, nil, 400},
		{"hold of nobody", "POST", "/api/manage/holds", `{"reason":"x"}`, nil, 400},
		{"hold of a bad user id", "POST", "/api/manage/holds", `{"userId":"a/b","reason":"x"}`, nil, 400},
		{"hold with an unknown field", "POST", "/api/manage/holds", `{"userId":"bob","reason":"x","until":"2027"}`, nil, 400},
		{"hold by a user", "POST", "/api/manage/holds", `{"userId":"bob","reason":"x"}`, []string{"X-User-Id: bob"}, 403},
		{"release of an unknown hold", "DELETE", "/api/manage/holds/hold-` + uuid + `", ``, nil, 404},
		{"release of a todo id", "DELETE", "/api/manage/holds/" + id, ``, nil, 404},
		{"holds with a parameter", "GET", "/api/manage/holds?userId=bob", ``, nil, 400},
		{"export with a continuation", "GET", "/api/activity/export?continuation=x", ``, nil, 400},
		{"export with a bad since", "GET", "/api/activity/export?since=soon", ``, nil, 400},
		{"admin export without actor or owner", "GET", "/api/manage/audit/export", ``, nil, 400},
		{"history export with a parameter", "GET", "/api/todos/" + id + "/history/export?pageSize=5", ``, nil, 400},
		{"history export of a missing todo", "GET", "/api/todos/Grocery:" + uuid + "/history/export", ``, nil, 404},
		{"history with a filter", "GET", "/api/todos/" + id + "/history?category=x", ``, nil, 400},
		{"bad user id", "GET", "/api/todos", ``, []string{"X-User-Id: a/b"}, 400},
		{"unknown route", "GET", "/api/nothing", ``, nil, 404},
		{"partitions top out of range", "GET", "/api/manage/partitions?top=0", ``, nil, 400},
		{"wrong method", "PATCH", "/api/todos/" + id, `{}`, nil, 405},
		{"dead letters filtered by category", "GET", "/api/manage/deadletters?category=Grocery", ``, nil, 400},
		{"dead letters with a bad continuation", "GET", "/api/manage/deadletters?continuation=x", ``, nil, 400},
		{"public call of AuditTrigger", "POST", "/AuditTrigger", `{"Data":{"documents":"\"[]\""},"Metadata":{}}`, nil, 404},
		{"public call of AuditTrigger with a guessed key", "POST", "/AuditTrigger", `{"Data":{"documents":"\"[]\""},"Metadata":{}}`, []string{azfunc.KeyHeader + ": guess"}, 404},
		{"public call of Reconcile", "POST", "/Reconcile", `{"Data":{"timer":{}},"Metadata":{}}`, nil, 404},
		{"public GET of AuditTrigger", "GET", "/AuditTrigger", ``, nil, 404},
	}
	if len(cases) < 25 {
		t.Fatalf("only %d bad-input cases", len(cases))
	}
	before := state(t, s, id)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			r := s.Do(tc.method, tc.path, body, tc.headers...)
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.Status, tc.status, r.Body)
			}
			if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
				t.Fatalf("Content-Type %q, want application/problem+json", ct)
			}
			var p map[string]any
			if err := json.Unmarshal(r.Body, &p); err != nil {
				t.Fatal(err)
			}
			if p["type"] == "" || p["title"] == "" || p["status"] != float64(tc.status) || p["detail"] == "" {
				t.Fatalf("problem body %s", r.Body)
			}
		})
	}
	if after := state(t, s, id); after != before {
		t.Fatalf("bad input changed what is stored:\nbefore %s\nafter  %s", before, after)
	}
	want(t, s.Do("GET", "/api/health", nil), 200)
}

// state summarises everything the API shows: every todo of every user,
// the history of one, and the legal holds.
func state(t *testing.T, s *server, id string) string {
	t.Helper()
	all := s.ListAll("/api/manage/todos?pageSize=100")
	h, _ := s.history(id)
	holds := want(t, s.Do("GET", "/api/manage/holds", nil), 200).JSON(t)
	b, _ := json.Marshal([]any{all, h, holds})
	return string(b)
}
