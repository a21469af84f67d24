package app_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo/auth"
	"github.com/todoaudit/todo/auth/authtest"
	"github.com/todoaudit/todo/azfunc"
)

// Every bad input gets a 4xx problem+json answer of a few hundred bytes
// at most (or, for an unclean path, a 308 to the clean one), stores
// nothing and leaves the server serving.
func TestBadInput(t *testing.T) {
	s := startApp(t, map[string]string{"MAX_BODY_BYTES": "4096", "ADMIN_USERS": "alice"})
	good := s.Create("Grocery", "milk")
	id := good["id"].(string)
	const uuid = "41500e6e-4e08-495b-9d09-824f03961f4a"
	big := `{"category":"Grocery","title":"` + strings.Repeat("x", 5000) + `"}`
	s.Create("Grocery", "eggs")
	sortedToken := want(t, s.Do("GET", "/api/todos?sort=dueDate&pageSize=1", nil), 200).JSON(t)["continuation"].(string)
	forgedPosition := forgeSortPosition(t, sortedToken)
	want(t, s.Do("POST", "/api/todos", `{"category":"Grocery","title":"once"}`, "Idempotency-Key: used-1"), 201)
	want(t, s.Do("POST", "/api/todos/"+id+"/rollback", `{"version":1}`, "Idempotency-Key: undo-used"), 200)

	cases := []badInput{
		{"malformed JSON", "POST", "/api/todos", `{"category":`, nil, 400},
		{"not an object", "POST", "/api/todos", `["Grocery"]`, nil, 400},
		{"trailing data", "POST", "/api/todos", `{"category":"a","title":"b"} {}`, nil, 400},
		{"empty body", "POST", "/api/todos", ``, nil, 400},
		{"wrong type title", "POST", "/api/todos", `{"category":"a","title":7}`, nil, 400},
		{"wrong type isCompleted", "POST", "/api/todos", `{"category":"a","title":"b","isCompleted":"yes"}`, nil, 400},
		{"wrong type tags", "POST", "/api/todos", `{"category":"a","title":"b","tags":"x"}`, nil, 400},
		{"bad dueDate", "POST", "/api/todos", `{"category":"a","title":"b","dueDate":"tomorrow"}`, nil, 400},
		{"unknown field", "POST", "/api/todos", `{"category":"a","title":"b","owner":"bob"}`, nil, 400},
		{"dueDate a number", "POST", "/api/todos", `{"category":"a","title":"b","dueDate":5}`, nil, 400},
		{"isCompleted null", "POST", "/api/todos", `{"category":"Grocery","title":"b","isCompleted":null}`, nil, 400},
		{"dueDate null", "PUT", "/api/todos/" + id, `{"category":"Grocery","title":"b","dueDate":null}`, nil, 400},
		{"tags null", "POST", "/api/todos", `{"category":"Grocery","title":"b","tags":null}`, nil, 400},
		{"move to a null category", "POST", "/api/todos/" + id + "/move", `{"category":null}`, nil, 400},
		{"hold of a null todo", "POST", "/api/manage/holds", `{"userId":"bob","todoId":null,"reason":"x"}`, nil, 400},
		{"id in body", "POST", "/api/todos", `{"id":"x","category":"a","title":"b"}`, nil, 400},
		{"missing title", "POST", "/api/todos", `{"category":"a"}`, nil, 400},
		{"missing category", "POST", "/api/todos", `{"title":"b"}`, nil, 400},
		{"blank title", "POST", "/api/todos", `{"category":"a","title":"  "}`, nil, 400},
		{"title of an ideographic space", "POST", "/api/todos", `{"category":"a","title":"\u3000"}`, nil, 400},
		{"title of a zero-width space", "POST", "/api/todos", `{"category":"a","title":"\u200b"}`, nil, 400},
		{"title of invisible characters", "POST", "/api/todos", `{"category":"a","title":"\u3000\u200b\u2060\ufeff\u00a0"}`, nil, 400},
		{"title of invisible characters on PUT", "PUT", "/api/todos/" + id, `{"category":"Grocery","title":"\u200b\u3000"}`, nil, 400},
		{"title of bidi marks", "POST", "/api/todos", `{"category":"a","title":"\u200e\u202e"}`, nil, 400},
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
		{"JSON in UTF-16", "POST", "/api/todos", `{"category":"a","title":"b"}`, []string{"Content-Type: application/json; charset=utf-16"}, 415},
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
		{"asOf with offset +24:00", "GET", "/api/todos/" + id + "?asOf=2026-01-02T15:04:05%2B24:00", ``, nil, 400},
		{"asOf with offset -24:00", "GET", "/api/todos/" + id + "?asOf=2026-01-02T15:04:05-24:00", ``, nil, 400},
		{"asOf with a one-digit hour", "GET", "/api/todos/" + id + "?asOf=2026-01-02T5:04:05Z", ``, nil, 400},
		{"asOf with a decimal comma", "GET", "/api/todos/" + id + "?asOf=2026-01-02T15:04:05,5Z", ``, nil, 400},
		{"asOf empty", "GET", "/api/todos/" + id + "?asOf=", ``, nil, 400},
		{"verify from version 0", "GET", "/api/todos/" + id + "/history/verify?from=0", ``, nil, 400},
		{"verify from a word", "GET", "/api/todos/" + id + "/history/verify?from=two", ``, nil, 400},
		{"verify from 2 without prevHash", "GET", "/api/todos/" + id + "/history/verify?from=2", ``, nil, 400},
		{"verify with prevHash from version 1", "GET", "/api/todos/" + id + "/history/verify?prevHash=ab", ``, nil, 400},
		{"verify with from twice", "GET", "/api/todos/" + id + "/history/verify?from=2&from=3&prevHash=ab", ``, nil, 400},
		{"verify with a prevHash too long", "GET", "/api/todos/" + id + "/history/verify?from=2&prevHash=" + strings.Repeat("a", 200), ``, nil, 400},
		{"verify from a version there is not", "GET", "/api/todos/" + id + "/history/verify?from=99&prevHash=ab", ``, nil, 404},
		{"verify with a bad id", "GET", "/api/todos/a%5Cb/history/verify", ``, nil, 400},
		{"rollback without version", "POST", "/api/todos/" + id + "/rollback", `{}`, nil, 400},
		{"rollback to version 0", "POST", "/api/todos/" + id + "/rollback", `{"version":0}`, nil, 400},
		{"rollback to missing version", "POST", "/api/todos/" + id + "/rollback", `{"version":99}`, nil, 404},
		{"rollback version as string", "POST", "/api/todos/" + id + "/rollback", `{"version":"1"}`, nil, 400},
		{"move without category", "POST", "/api/todos/" + id + "/move", `{}`, nil, 400},
		{"move to invalid category", "POST", "/api/todos/" + id + "/move", `{"category":"a#b"}`, nil, 400},
		{"diff without to", "GET", "/api/todos/" + id + "/history/diff?from=1", ``, nil, 400},
		{"diff from version 0", "GET", "/api/todos/" + id + "/history/diff?from=0&to=1", ``, nil, 400},
		{"proof of version 0", "GET", "/api/todos/" + id + "/history/proof?version=0", ``, nil, 400},
		{"proof of a version not a number", "GET", "/api/todos/" + id + "/history/proof?version=one", ``, nil, 400},
		{"diff to a version not a number", "GET", "/api/todos/" + id + "/history/diff?from=1&to=two", ``, nil, 400},
		{"diff with from twice", "GET", "/api/todos/" + id + "/history/diff?from=1&from=2&to=1", ``, nil, 400},
		{"diff with an unknown parameter", "GET", "/api/todos/" + id + "/history/diff?from=1&to=1&x=1", ``, nil, 400},
		{"diff to a missing version", "GET", "/api/todos/" + id + "/history/diff?from=1&to=99", ``, nil, 404},
		{"activity since not a time", "GET", "/api/activity?since=yesterday", ``, nil, 400},
		{"activity since after until", "GET", "/api/activity?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z", ``, nil, 400},
		{"activity over more than ten years", "GET", "/api/activity?since=2000-01-01T00:00:00Z&until=2026-01-01T00:00:00Z", ``, nil, 400},
		{"activity of an unknown operation", "GET", "/api/activity?operation=purge", ``, nil, 400},
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
		{"erasure without a reason", "POST", "/api/manage/erasures", `{"userId":"bob"}`, nil, 400},
		{"erasure with a blank reason", "POST", "/api/manage/erasures", `{"userId":"bob","reason":" \t "}`, nil, 400},
		{"erasure with a reason too long", "POST", "/api/manage/erasures", `{"userId":"bob","reason":"` + strings.Repeat("r", 1025) + `"}`, nil, 400},
		{"erasure of nobody", "POST", "/api/manage/erasures", `{"reason":"x"}`, nil, 400},
		{"erasure of a bad user id", "POST", "/api/manage/erasures", `{"userId":"a/b","reason":"x"}`, nil, 400},
		{"erasure of a user id of the wrong type", "POST", "/api/manage/erasures", `{"userId":7,"reason":"x"}`, nil, 400},
		{"erasure with an unknown field", "POST", "/api/manage/erasures", `{"userId":"bob","reason":"x","scope":"all"}`, nil, 400},
		{"erasure with a parameter", "POST", "/api/manage/erasures?force=1", `{"userId":"bob","reason":"x"}`, nil, 400},
		{"erasure by a user", "POST", "/api/manage/erasures", `{"userId":"bob","reason":"x"}`, []string{"X-User-Id: bob"}, 403},
		{"status of an unknown erasure", "GET", "/api/manage/erasures/erasure-00000000000000000000000000000000", ``, nil, 404},
		{"status of a todo id as an erasure", "GET", "/api/manage/erasures/" + id, ``, nil, 404},
		{"status of an erasure with a parameter", "GET", "/api/manage/erasures/erasure-00000000000000000000000000000000?x=1", ``, nil, 400},
		{"status of an erasure by a user", "GET", "/api/manage/erasures/erasure-00000000000000000000000000000000", ``, []string{"X-User-Id: bob"}, 403},
		{"own erasure with a parameter", "DELETE", "/api/me/data?force=1", ``, nil, 400},
		{"own erasure with the wrong method", "POST", "/api/me/data", `{}`, nil, 405},
		{"own erasure status with a parameter", "GET", "/api/me/erasure?run=1", ``, nil, 400},
		{"own erasure status when none was asked for", "GET", "/api/me/erasure", ``, nil, 404},
		{"export with a continuation", "GET", "/api/activity/export?continuation=x", ``, nil, 400},
		{"export with a bad since", "GET", "/api/activity/export?since=soon", ``, nil, 400},
		{"admin export without actor or owner", "GET", "/api/manage/audit/export", ``, nil, 400},
		{"history export with a parameter", "GET", "/api/todos/" + id + "/history/export?pageSize=5", ``, nil, 400},
		{"history export of a missing todo", "GET", "/api/todos/Grocery:" + uuid + "/history/export", ``, nil, 404},
		{"history with a filter", "GET", "/api/todos/" + id + "/history?category=x", ``, nil, 400},
		{"bad user id", "GET", "/api/todos", ``, []string{"X-User-Id: a/b"}, 400},
		{"unknown route", "GET", "/api/nothing", ``, nil, 404},
		{"partitions top out of range", "GET", "/api/manage/partitions?top=0", ``, nil, 400},
		{"wrong method", "POST", "/api/todos/" + id, `{"category":"Grocery","title":"b"}`, nil, 405},
		{"unknown parameter on a point read", "GET", "/api/todos/" + id + "?owner=bob", ``, nil, 400},
		{"unknown parameter on create", "POST", "/api/todos?owner=bob", `{"category":"Grocery","title":"b"}`, nil, 400},
		{"unknown parameter on PUT", "PUT", "/api/todos/" + id + "?owner=bob", `{"category":"Grocery","title":"b"}`, nil, 400},
		{"unknown parameter on verify", "GET", "/api/todos/" + id + "/history/verify?to=2", ``, nil, 400},
		{"unknown parameter on rollback", "POST", "/api/todos/" + id + "/rollback?force=1", `{"version":1}`, nil, 400},
		{"unknown parameter on move", "POST", "/api/todos/" + id + "/move?force=1", `{"category":"Household"}`, nil, 400},
		{"unknown parameter on partitions", "GET", "/api/manage/partitions?owner=bob", ``, nil, 400},
		{"unknown parameter on health", "GET", "/api/health?verbose=1", ``, nil, 400},
		{"unknown parameter on the contract", "GET", "/api/openapi.json?v=3", ``, nil, 400},
		{"top given twice", "GET", "/api/manage/partitions?top=5&top=6", ``, nil, 400},
		{"pageSize given twice", "GET", "/api/todos?pageSize=5&pageSize=6", ``, nil, 400},
		{"function key given twice", "GET", "/api/todos?code=a&code=b", ``, nil, 400},
		{"malformed query on a point read", "GET", "/api/todos/" + id + "?asOf=%zz", ``, nil, 400},
		{"parameter named by a 900 KB key", "GET", "/api/todos?" + strings.Repeat("k", 900_000) + "=1", ``, nil, 400},
		{"900 KB path", "GET", "/api/" + strings.Repeat("p", 900_000), ``, nil, 404},
		{"unclean create path", "POST", "//api//todos", `{"category":"Grocery","title":"b"}`, nil, 308},
		{"unclean PUT path", "PUT", "/api/todos/./" + id, `{"category":"Grocery","title":"b"}`, nil, 308},
		{"unclean rollback path", "POST", "/api/todos/x/../" + id + "/rollback", `{"version":1}`, nil, 308},
		{"unclean DELETE path", "DELETE", "/api//todos/" + id, ``, nil, 308},
		{"empty Idempotency-Key", "POST", "/api/todos", `{"category":"Grocery","title":"k"}`, []string{"Idempotency-Key:"}, 400},
		{"empty quoted Idempotency-Key", "POST", "/api/todos", `{"category":"Grocery","title":"k"}`, []string{`Idempotency-Key: ""`}, 400},
		{"Idempotency-Key too long", "POST", "/api/todos", `{"category":"Grocery","title":"k"}`, []string{"Idempotency-Key: " + strings.Repeat("k", 256)}, 400},
		{"quoted Idempotency-Key too long", "POST", "/api/todos", `{"category":"Grocery","title":"k"}`, []string{`Idempotency-Key: "` + strings.Repeat("k", 256) + `"`}, 400},
		{"non-ASCII Idempotency-Key", "POST", "/api/todos", `{"category":"Grocery","title":"k"}`, []string{"Idempotency-Key: clé"}, 400},
		{"Idempotency-Key with a tab", "POST", "/api/todos", `{"category":"Grocery","title":"k"}`, []string{"Idempotency-Key: a\tb"}, 400},
		{"Idempotency-Key with a bare quote inside quotes", "POST", "/api/todos", `{"category":"Grocery","title":"k"}`, []string{`Idempotency-Key: "a"b"`}, 400},
		{"Idempotency-Key with a lone backslash inside quotes", "POST", "/api/todos", `{"category":"Grocery","title":"k"}`, []string{`Idempotency-Key: "a\b"`}, 400},
		{"Idempotency-Key on a bad body", "POST", "/api/todos", `{"category":"Grocery"}`, []string{"Idempotency-Key: fresh-1"}, 400},
		{"Idempotency-Key reused with another body", "POST", "/api/todos", `{"category":"Grocery","title":"other"}`, []string{"Idempotency-Key: used-1"}, 422},
		{"Idempotency-Key reused on rollback with another version", "POST", "/api/todos/" + id + "/rollback", `{"version":2}`, []string{"Idempotency-Key: undo-used"}, 422},
		{"Idempotency-Key on move with a bad id", "POST", "/api/todos/a%5Cb/move", `{"category":"Home"}`, []string{"Idempotency-Key: move-1"}, 400},
		{"empty Idempotency-Key on rollback", "POST", "/api/todos/" + id + "/rollback", `{"version":1}`, []string{"Idempotency-Key:"}, 400},
		{"list with an empty tag", "GET", "/api/todos?tag=", ``, nil, 400},
		{"list with an empty tag between commas", "GET", "/api/todos?tag=a,,b", ``, nil, 400},
		{"list with a control character in a tag", "GET", "/api/todos?tag=a%07", ``, nil, 400},
		{"list with a bidi override in a tag", "GET", "/api/todos?tag=%E2%80%AEa", ``, nil, 400},
		{"list with a tag too long", "GET", "/api/todos?tag=" + strings.Repeat("t", 65), ``, nil, 400},
		{"list with too many tags", "GET", "/api/todos?tag=" + strings.Repeat("t,", 32) + "t", ``, nil, 400},
		{"list with a bad dueBefore", "GET", "/api/todos?dueBefore=tomorrow", ``, nil, 400},
		{"list with a dueBefore without a zone", "GET", "/api/todos?dueBefore=2026-01-02T15:04:05", ``, nil, 400},
		{"list with a dueAfter of month 13", "GET", "/api/todos?dueAfter=2026-13-01", ``, nil, 400},
		{"list with a dueAfter in year 10000 by its offset", "GET", "/api/todos?dueAfter=9999-12-31T23:59:59-23:59", ``, nil, 400},
		{"list with an empty dueAfter", "GET", "/api/todos?dueAfter=", ``, nil, 400},
		{"list with dueBefore twice", "GET", "/api/todos?dueBefore=2026-01-01&dueBefore=2027-01-01", ``, nil, 400},
		{"list with an empty q", "GET", "/api/todos?q=", ``, nil, 400},
		{"list with a blank q", "GET", "/api/todos?q=%20%20", ``, nil, 400},
		{"list with a control character in q", "GET", "/api/todos?q=a%00b", ``, nil, 400},
		{"list with invalid UTF-8 in q", "GET", "/api/todos?q=%FF", ``, nil, 400},
		{"list with q too long", "GET", "/api/todos?q=" + strings.Repeat("q", 1025), ``, nil, 400},
		{"list with q twice", "GET", "/api/todos?q=a&q=b", ``, nil, 400},
		{"list sorted by an unknown property", "GET", "/api/todos?sort=priority", ``, nil, 400},
		{"list sorted by id", "GET", "/api/todos?sort=id", ``, nil, 400},
		{"list with an empty sort", "GET", "/api/todos?sort=", ``, nil, 400},
		{"list sorted twice", "GET", "/api/todos?sort=title&sort=dueDate", ``, nil, 400},
		{"list sorted by two properties joined", "GET", "/api/todos?sort=title,dueDate", ``, nil, 400},
		{"list with an unknown order", "GET", "/api/todos?sort=title&order=up", ``, nil, 400},
		{"list with an order in capitals", "GET", "/api/todos?sort=title&order=DESC", ``, nil, 400},
		{"list with an order but no sort", "GET", "/api/todos?order=desc", ``, nil, 400},
		{"list with a sorted page's continuation on another sort", "GET", "/api/todos?sort=title&continuation=" + sortedToken, ``, nil, 400},
		{"list with a forged sort position", "GET", "/api/todos?sort=dueDate&continuation=" + forgedPosition, ``, nil, 400},
		{"admin report sorted by an unknown property", "GET", "/api/manage/todos?sort=owner", ``, nil, 400},
		{"admin report with a bad dueAfter", "GET", "/api/manage/todos?dueAfter=soon", ``, nil, 400},
		{"history sorted", "GET", "/api/todos/" + id + "/history?sort=title", ``, nil, 400},
		{"history filtered by tag", "GET", "/api/todos/" + id + "/history?tag=x", ``, nil, 400},
		{"dead letters searched", "GET", "/api/manage/deadletters?q=x", ``, nil, 400},
		{"list with an unknown parameter", "GET", "/api/todos?priority=high", ``, nil, 400},
		{"patch as application/json", "PATCH", "/api/todos/" + id, `{"title":"x"}`, nil, 415},
		{"patch without a media type", "PATCH", "/api/todos/" + id, `{"title":"x"}`, []string{"Content-Type:"}, 415},
		{"patch as a JSON Patch", "PATCH", "/api/todos/" + id, `[{"op":"replace","path":"/title","value":"x"}]`, []string{"Content-Type: application/json-patch+json"}, 415},
		{"patch not an object", "PATCH", "/api/todos/" + id, `["title"]`, []string{mergePatch}, 400},
		{"patch empty", "PATCH", "/api/todos/" + id, ``, []string{mergePatch}, 400},
		{"patch malformed", "PATCH", "/api/todos/" + id, `{"title":`, []string{mergePatch}, 400},
		{"patch duplicate key", "PATCH", "/api/todos/" + id, `{"title":"a","title":"b"}`, []string{mergePatch}, 400},
		{"patch lone surrogate", "PATCH", "/api/todos/" + id, `{"title":"\ud800"}`, []string{mergePatch}, 400},
		{"patch id", "PATCH", "/api/todos/" + id, `{"id":"Grocery:` + uuid + `"}`, []string{mergePatch}, 400},
		{"patch userId", "PATCH", "/api/todos/" + id, `{"userId":"bob"}`, []string{mergePatch}, 400},
		{"patch version", "PATCH", "/api/todos/" + id, `{"version":7}`, []string{mergePatch}, 400},
		{"patch createdAt", "PATCH", "/api/todos/" + id, `{"createdAt":"2020-01-01T00:00:00Z"}`, []string{mergePatch}, 400},
		{"patch updatedAt", "PATCH", "/api/todos/" + id, `{"updatedAt":null}`, []string{mergePatch}, 400},
		{"patch movedFrom", "PATCH", "/api/todos/" + id, `{"movedFrom":"x"}`, []string{mergePatch}, 400},
		{"patch removing the title", "PATCH", "/api/todos/" + id, `{"title":null}`, []string{mergePatch}, 400},
		{"patch removing isCompleted", "PATCH", "/api/todos/" + id, `{"isCompleted":null}`, []string{mergePatch}, 400},
		{"patch blank title", "PATCH", "/api/todos/" + id, `{"title":" "}`, []string{mergePatch}, 400},
		{"patch unknown field", "PATCH", "/api/todos/" + id, `{"owner":"bob"}`, []string{mergePatch}, 400},
		{"patch internal field", "PATCH", "/api/todos/" + id, `{"type":"todoVersion"}`, []string{mergePatch}, 400},
		{"patch capitalised field", "PATCH", "/api/todos/" + id, `{"Title":"x"}`, []string{mergePatch}, 400},
		{"patch nested unknown field", "PATCH", "/api/todos/" + id, `{"tags":{"a":1}}`, []string{mergePatch}, 400},
		{"patch bad dueDate", "PATCH", "/api/todos/" + id, `{"dueDate":"tomorrow"}`, []string{mergePatch}, 400},
		{"patch too many tags", "PATCH", "/api/todos/" + id, `{"tags":[` + strings.Repeat(`"t",`, 32) + `"t"]}`, []string{mergePatch}, 400},
		{"patch with a malformed If-Match", "PATCH", "/api/todos/" + id, `{"title":"x"}`, []string{mergePatch, "If-Match: abc"}, 400},
		{"patch with a stale If-Match", "PATCH", "/api/todos/" + id, `{"title":"x"}`, []string{mergePatch, `If-Match: "stale"`}, 412},
		{"patch too large", "PATCH", "/api/todos/" + id, `{"notes":"` + strings.Repeat("x", 5000) + `"}`, []string{mergePatch}, 413},
		{"patch a missing todo", "PATCH", "/api/todos/Grocery:" + uuid, `{"title":"x"}`, []string{mergePatch}, 404},
		{"dead letters filtered by category", "GET", "/api/manage/deadletters?category=Grocery", ``, nil, 400},
		{"dead letters with a bad continuation", "GET", "/api/manage/deadletters?continuation=x", ``, nil, 400},
		{"public call of AuditTrigger", "POST", "/AuditTrigger", `{"Data":{"documents":"\"[]\""},"Metadata":{}}`, nil, 404},
		{"public call of AuditTrigger as the host sends it", "POST", "/AuditTrigger", `{"Data":{"documents":"\"[]\""},"Metadata":{}}`, []string{azfunc.InvocationIDHeader + ": 0d2c9a4e-5a7b-4f6e-8a59-3c1f2f0a9e77"}, 404},
		{"public call of Reconcile", "POST", "/Reconcile", `{"Data":{"timer":{}},"Metadata":{}}`, nil, 404},
		{"public GET of AuditTrigger", "GET", "/AuditTrigger", ``, nil, 404},
	}
	if len(cases) < 25 {
		t.Fatalf("only %d bad-input cases", len(cases))
	}
	wantRefused(t, s, id, cases)
}

// badInput is a request the handler must refuse.
type badInput struct {
	name, method, path, body string
	headers                  []string
	status                   int
}

// wantRefused sends each case to s and checks that it gets its status with
// a problem+json body, that nothing s shows changed (every todo, and the
// history of id), and that s is still healthy.
func wantRefused(t *testing.T, s *server, id string, cases []badInput) {
	t.Helper()
	before := state(t, s, id)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			r := s.Do(tc.method, tc.path, body, tc.headers...)
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d: %.300s", r.Status, tc.status, r.Body)
			}
			if tc.status == http.StatusPermanentRedirect {
				if r.Header.Get("Location") == "" {
					t.Fatal("308 without Location")
				}
				return
			}
			if tc.status == http.StatusMethodNotAllowed && r.Header.Get("Allow") == "" {
				t.Fatal("405 without Allow")
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
			if len(r.Body) > 2048 {
				t.Fatalf("a %d-byte problem answer: %.300s", len(r.Body), r.Body)
			}
		})
	}
	if after := state(t, s, id); after != before {
		t.Fatalf("bad input changed what is stored:\nbefore %s\nafter  %s", before, after)
	}
	want(t, s.Do("GET", "/api/health", nil), 200)
}

// Under entra, bearer tokens that are not one compact JWS, and claims
// whose names only fold to roles or oid, are refused like every other bad
// input.
func TestBadBearerTokens(t *testing.T) {
	key := authtest.NewKey(t, "k1")
	idp := authtest.Start(t, key)
	s := startApp(t, map[string]string{"AUTH_ISSUER": idp.Issuer, "AUTH_AUDIENCE": audience})
	waitForKeys(t, s)
	admin := s.with(bearer(authtest.Sign(t, key, idp.Claims(audience, oid, auth.AdminRole))))
	id := admin.Create("Grocery", "milk")["id"].(string)

	sign := func(change func(map[string]any)) string {
		c := idp.Claims(audience, "0f0f0f0f-1111-4222-8333-444455556666")
		change(c)
		return authtest.Sign(t, key, c)
	}
	valid := sign(func(map[string]any) {})
	header, rest, _ := strings.Cut(valid, ".")
	const body = `{"category":"Grocery","title":"b"}`
	cases := []badInput{
		{"bearer token with a space inside", "POST", "/api/todos", body, []string{"Authorization: Bearer " + header + ". " + rest}, 401},
		{"bearer token with a tab inside", "POST", "/api/todos", body, []string{"Authorization: Bearer " + header + "\t." + rest}, 401},
		{"bearer token in the JWS JSON serialisation", "POST", "/api/todos", body, []string{"Authorization: Bearer " + authtest.SignJSONSerialization(t, key, idp.Claims(audience, oid))}, 401},
		{"bearer token of two parts", "POST", "/api/todos", body, []string{"Authorization: Bearer " + header + "." + strings.Split(rest, ".")[0]}, 401},
		{"bearer token with base64 padding", "POST", "/api/todos", body, []string{"Authorization: Bearer " + header + "=." + rest}, 401},
		{"OID claim without oid", "POST", "/api/todos", body, []string{"Authorization: Bearer " + sign(func(c map[string]any) { c["OID"] = c["oid"]; delete(c, "oid") })}, 401},
		{"oid claim twice", "POST", "/api/todos", body, []string{"Authorization: Bearer " + authtest.SignPayload(t, key, []byte(fmt.Sprintf(`{"iss":%q,"aud":%q,"exp":%d,"oid":"a","oid":%q}`, idp.Issuer, audience, time.Now().Add(time.Hour).Unix(), oid)))}, 401},
		{"ROLES claim on an admin route", "GET", "/api/manage/todos", ``, []string{"Authorization: Bearer " + sign(func(c map[string]any) { c["ROLES"] = []string{auth.AdminRole} })}, 403},
		{"Roles claim on an admin route", "GET", "/api/manage/todos", ``, []string{"Authorization: Bearer " + sign(func(c map[string]any) { c["Roles"] = []string{auth.AdminRole} })}, 403},
		{"roleſ claim on an admin route", "GET", "/api/manage/partitions", ``, []string{"Authorization: Bearer " + sign(func(c map[string]any) { c["roleſ"] = []string{auth.AdminRole} })}, 403},
	}
	wantRefused(t, admin, id, cases)
}

const mergePatch = "Content-Type: application/merge-patch+json"

// forgeSortPosition returns token with its position's id replaced by one
// that is not an id: a caller editing the opaque token.
func forgeSortPosition(t *testing.T, token string) string {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m["a"] == nil {
		t.Fatalf("a sorted page's token %s has no position", raw)
	}
	m["a"].(map[string]any)["id"] = "a/b"
	b, _ := json.Marshal(m)
	return base64.RawURLEncoding.EncodeToString(b)
}

// state summarises everything the API shows: every todo of every user,
// the history of one, the legal holds and whether an erasure was asked
// for.
func state(t *testing.T, s *server, id string) string {
	t.Helper()
	all := s.ListAll("/api/manage/todos?pageSize=100")
	h, _ := s.history(id)
	holds := want(t, s.Do("GET", "/api/manage/holds", nil), 200).JSON(t)
	var erasures []int
	for _, u := range []string{"alice", "bob"} {
		erasures = append(erasures, s.As(u).Do("GET", "/api/me/erasure", nil).Status)
	}
	b, _ := json.Marshal([]any{all, h, holds, erasures})
	return string(b)
}
