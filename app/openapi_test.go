package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/todoaudit/todo/app/apitest"
	"github.com/todoaudit/todo/governance"
	"github.com/todoaudit/todo/httpapi"
)

func init() {
	// Exports answer NDJSON: one JSON value per line.
	openapi3filter.RegisterBodyDecoder("application/x-ndjson", func(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
		var out []any
		dec := json.NewDecoder(body)
		for dec.More() {
			var v any
			if err := dec.Decode(&v); err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	})
}

func loadSpec(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromFile("../openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background(), openapi3.EnableExamplesValidation()); err != nil {
		t.Fatalf("openapi.json is not valid (examples included): %v", err)
	}
	return doc
}

// Every served route is documented with the query parameters it takes
// (besides the function key), and every documented route is served.
func TestOpenAPIMatchesRouter(t *testing.T) {
	doc := loadSpec(t)
	var documented, served []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			var query []string
			for _, p := range append(item.Parameters, op.Parameters...) {
				if p.Value.In == openapi3.ParameterInQuery {
					query = append(query, p.Value.Name)
				}
			}
			sort.Strings(query)
			documented = append(documented, method+" "+path+" "+fmt.Sprint(op.Extensions["x-function"])+" "+fmt.Sprint(query))
		}
	}
	for _, r := range httpapi.Routes {
		var query []string
		for _, p := range r.Query {
			query = append(query, p.Name)
		}
		sort.Strings(query)
		served = append(served, r.Method+" "+r.Path+" "+r.Function+" "+fmt.Sprint(query))
	}
	sort.Strings(documented)
	sort.Strings(served)
	if strings.Join(documented, "\n") != strings.Join(served, "\n") {
		t.Fatalf("documented:\n%s\n\nserved:\n%s", strings.Join(documented, "\n"), strings.Join(served, "\n"))
	}
}

// Every route answers a query parameter it does not take with 400 and a
// method its path does not serve with 405 (with Allow): every operation
// declares both.
func TestOpenAPIDeclaresRefusals(t *testing.T) {
	doc := loadSpec(t)
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for _, status := range []int{http.StatusBadRequest, http.StatusMethodNotAllowed} {
				if op.Responses.Status(status) == nil {
					t.Errorf("%s %s declares no %d", method, path, status)
				}
			}
		}
	}
}

// Real answers of the running handler have the status each request must
// get, and conform to the document.
func TestResponsesMatchOpenAPI(t *testing.T) {
	router := specRouter(t)
	s := startApp(t, map[string]string{"ADMIN_USERS": "alice"})
	id := s.Create("Grocery", "milk")["id"].(string)
	s.integrate()
	served := want(t, s.Do("GET", "/api/openapi.json", nil), 200)
	if file, _ := os.ReadFile("../openapi.json"); !bytes.Equal(served.Body, file) {
		t.Fatal("GET /api/openapi.json does not serve openapi.json")
	}
	specETag := served.Header.Get("ETag")
	other := s.Create("Grocery", "bread")["id"].(string)
	requests := []struct {
		method, path, body string
		headers            []string
		status             int
	}{
		{"GET", "/api/todos?pageSize=1", "", nil, 200},
		{"GET", "/api/todos?tag=x&tag=y&dueBefore=2027-01-01&dueAfter=2026-01-01T00:00:00Z&q=egg&sort=dueDate&order=desc&pageSize=1", "", nil, 200},
		{"GET", "/api/todos?sort=sideways", "", nil, 400},
		{"POST", "/api/todos", `{"category":"Grocery","title":"eggs","tags":["x"],"dueDate":"2026-12-01T09:00:00Z"}`, nil, 201},
		{"POST", "/api/todos", `{"category":"Grocery"}`, nil, 400},
		{"POST", "/api/todos", `{"category":"Grocery","title":"once"}`, []string{`Idempotency-Key: "k-1"`}, 201},
		{"POST", "/api/todos", `{"category":"Grocery","title":"once"}`, []string{`Idempotency-Key: "k-1"`}, 201},
		{"POST", "/api/todos", `{"category":"Grocery","title":"twice"}`, []string{`Idempotency-Key: "k-1"`}, 422},
		{"POST", "/api/todos/" + id + "/rollback", `{"version":1}`, []string{"Idempotency-Key: r-1"}, 200},
		{"POST", "/api/todos/" + id + "/rollback", `{"version":2}`, []string{"Idempotency-Key: r-1"}, 422},
		{"GET", "/api/todos/" + id, "", nil, 200},
		{"GET", "/api/todos/Grocery:41500e6e-4e08-495b-9d09-824f03961f4a", "", nil, 404},
		{"PUT", "/api/todos/" + id, `{"category":"Grocery","title":"oat milk"}`, nil, 200},
		{"PUT", "/api/todos/" + id, `{"category":"Grocery","title":"x"}`, []string{`If-Match: "0000000000000000"`}, 412},
		{"PATCH", "/api/todos/" + id, `{"isCompleted":true,"notes":null}`, []string{mergePatch}, 200},
		{"PATCH", "/api/todos/" + id, `{"version":1}`, []string{mergePatch}, 400},
		{"PATCH", "/api/todos/" + id, `{"category":"Household"}`, []string{mergePatch}, 409},
		{"PATCH", "/api/todos/" + id, `{"title":"x"}`, []string{mergePatch, `If-Match: "0000000000000000"`}, 412},
		{"PATCH", "/api/todos/" + id, `{"title":"x"}`, nil, 415},
		{"PATCH", "/api/todos/Grocery:41500e6e-4e08-495b-9d09-824f03961f4a", `{"title":"x"}`, []string{mergePatch}, 404},
		{"GET", "/api/todos/" + id + "/history", "", nil, 200},
		{"GET", "/api/todos/" + id + "/history?form=2", "", nil, 200},
		{"GET", "/api/todos/" + id + "/history?form=3", "", nil, 400},
		{"POST", "/api/todos/" + id + "/rollback", `{"version":1}`, nil, 200},
		{"GET", "/api/todos/" + id + "/history/verify", "", nil, 200},
		{"GET", "/api/todos/" + id + "?asOf=2000-01-01T00:00:00Z", "", nil, 404},
		{"GET", "/api/todos/" + id + "?asOf=2100-01-01T00:00:00Z", "", nil, 200},
		{"PUT", "/api/todos/" + id, `{"category":"Grocery","title":"x"}`, []string{"If-None-Match: *"}, 412},
		{"POST", "/api/todos/" + id + "/move", `{"category":"Household"}`, nil, 201},
		{"PUT", "/api/todos/" + id, `{"category":"Grocery","title":"x"}`, nil, 409},
		{"DELETE", "/api/todos/" + id, "", nil, 409},
		{"GET", "/api/manage/todos", "", nil, 200},
		{"GET", "/api/manage/todos?sort=title&q=milk&tag=x", "", nil, 200},
		{"GET", "/api/manage/todos", "", []string{"X-User-Id: bob"}, 403},
		{"GET", "/api/health", "", nil, 200},
		{"GET", "/api/manage/partitions?top=5", "", nil, 200},
		{"GET", "/api/manage/deadletters?pageSize=5", "", nil, 200},
		{"GET", "/api/log/checkpoint", "", nil, 200},
		{"GET", "/api/log/key", "", nil, 200},
		{"GET", "/api/log/consistency?from=0&to=1", "", nil, 200},
		{"GET", "/api/log/consistency?from=1", "", nil, 400},
		{"GET", "/api/todos/" + id + "/history/proof?version=1", "", nil, 200},
		{"GET", "/api/todos/" + id + "/history/proof?version=99", "", nil, 404},
		{"GET", "/api/manage/log/verify", "", nil, 200},
		{"GET", "/api/manage/deadletters", "", []string{"X-User-Id: bob"}, 403},
		{"GET", "/api/openapi.json", "", []string{"X-User-Id: "}, 200},
		{"GET", "/api/openapi.json", "", []string{"If-None-Match: " + specETag}, 304},
		{"GET", "/api/openapi.json?v=2", "", nil, 400},
		{"GET", "/api/health?verbose=1", "", nil, 400},
		{"GET", "/api/manage/partitions?top=5&top=6", "", nil, 400},
		{"GET", "/api/todos/" + id + "/history/verify?pageSize=1", "", nil, 400},
		{"POST", "/api/todos", `{"category":"Grocery","title":"x"}`, []string{"Content-Type: text/plain"}, 415},
		{"POST", "/api/todos/" + other + "/move", `{"category":"Grocery"}`, nil, 409},
		{"PATCH", "/api/todos", "", nil, 405},
		{"DELETE", "/api/openapi.json", "", nil, 405},
		{"PUT", "/api/todos/" + id + "/history", "", nil, 405},
		{"POST", "/api/todos/" + id + "/history/diff", "", nil, 405},
		{"POST", "/api/log/checkpoint", "", nil, 405},
		{"GET", "/api/log/checkpoint?x=1", "", nil, 400},
		{"GET", "/api/log/policy?x=1", "", nil, 400},
		{"GET", "/api/manage/log/verify?x=1", "", nil, 400},
		{"GET", "/api/todos/" + id + "/history/diff?from=1&to=3", "", nil, 200},
		{"GET", "/api/todos/" + id + "/history/diff?from=1", "", nil, 400},
		{"GET", "/api/activity?pageSize=2&operation=update", "", nil, 200},
		{"GET", "/api/activity?pageSize=2&form=2", "", nil, 200},
		{"GET", "/api/manage/audit?actor=alice&form=2", "", nil, 200},
		{"GET", "/api/activity?actor=bob", "", nil, 400},
		{"GET", "/api/manage/audit?actor=alice&since=2026-01-01T00:00:00Z", "", nil, 200},
		{"GET", "/api/manage/audit?actor=alice", "", []string{"X-User-Id: bob"}, 403},
		{"GET", "/api/manage/audit", "", nil, 400},
		{"GET", "/api/todos/" + id + "/history/export", "", nil, 200},
		{"GET", "/api/activity/export?operation=create", "", []string{"Accept: text/csv"}, 200},
		{"GET", "/api/manage/audit/export?actor=alice", "", nil, 200},
		{"GET", "/api/manage/audit/export?actor=alice&pageSize=5", "", nil, 400},
		{"POST", "/api/manage/holds", `{"userId":"bob","reason":"litigation"}`, nil, 201},
		{"POST", "/api/manage/holds", `{"reason":"litigation"}`, nil, 400},
		{"GET", "/api/manage/holds", "", nil, 200},
		{"DELETE", "/api/manage/holds/hold-41500e6e-4e08-495b-9d09-824f03961f4a", "", nil, 404},
		{"POST", "/api/manage/erasures", `{"userId":"bob","reason":"GDPR request"}`, nil, 409},
		{"POST", "/api/manage/erasures", `{"userId":"erin","reason":"GDPR request"}`, nil, 202},
		{"POST", "/api/manage/erasures", `{"reason":"GDPR request"}`, nil, 400},
		{"GET", "/api/manage/erasures/" + governance.ErasureID("erin"), "", nil, 200},
		{"GET", "/api/manage/erasures/" + governance.ErasureID("nobody"), "", nil, 404},
		{"GET", "/api/manage/audit?owner=erin&operation=erase", "", nil, 200},
		{"DELETE", "/api/me/data", "", []string{"X-User-Id: frank"}, 202},
		{"GET", "/api/me/erasure", "", []string{"X-User-Id: frank"}, 200},
		{"GET", "/api/me/erasure", "", []string{"X-User-Id: gina"}, 404},
	}
	for _, rq := range requests {
		var body any
		if rq.body != "" {
			body = rq.body
		}
		r := s.Do(rq.method, rq.path, body, rq.headers...)
		if r.Status != rq.status {
			t.Errorf("%s %s → %d, want %d: %s", rq.method, rq.path, r.Status, rq.status, r.Body)
		}
		conforms(t, router, rq.method, rq.path, rq.body, rq.status, r)
	}
}

// specRouter finds the documented operation of a request.
func specRouter(t *testing.T) routers.Router {
	t.Helper()
	doc := loadSpec(t)
	doc.Servers = openapi3.Servers{{URL: "http://127.0.0.1"}}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return router
}

// conforms checks that the answer r to method path (with body), which
// must have the status want, is one openapi.json documents.
func conforms(t *testing.T, router routers.Router, method, path, body string, want int, r apitest.Response) {
	t.Helper()
	req, _ := http.NewRequest(method, "http://127.0.0.1"+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	route, params, err := findRoute(router, req, want)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: r.Status, Header: r.Header,
		Body: io.NopCloser(bytes.NewReader(r.Body)), Options: &openapi3filter.Options{IncludeResponseStatus: true}}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Errorf("%s %s → %d does not match openapi.json: %v\n%s", method, path, r.Status, err, r.Body)
	}
}

// findRoute finds req's operation. A 405 answers a method the path has no
// operation for: it is checked against the path's other operations, each
// of which declares the 405 with Allow.
func findRoute(router routers.Router, req *http.Request, status int) (*routers.Route, map[string]string, error) {
	route, params, err := router.FindRoute(req)
	if err == nil || status != http.StatusMethodNotAllowed {
		return route, params, err
	}
	for _, m := range []string{"GET", "POST", "PUT", "DELETE"} {
		other := req.Clone(req.Context())
		other.Method = m
		if route, params, err := router.FindRoute(other); err == nil {
			return route, params, nil
		}
	}
	return nil, nil, err
}

// Under the Functions host the partition view says it counts this
// instance only and names the fleet-wide query the deployment saves;
// standalone it says the first and omits the second. Both answers conform
// to the document.
func TestPartitionViewScope(t *testing.T) {
	router := specRouter(t)
	for _, hosted := range []bool{false, true} {
		var s *server
		if hosted {
			s = startHosted(t, map[string]string{"AUTH_MODE": "single", "SINGLE_USER_ID": "alice", "ADMIN_USERS": "alice"})
		} else {
			s = startApp(t, map[string]string{"ADMIN_USERS": "alice"})
		}
		s.Create("Grocery", "milk")
		const path = "/api/manage/partitions"
		r := want(t, s.Do("GET", path, nil), 200)
		conforms(t, router, "GET", path, "", 200, r)
		view := r.JSON(t)
		fleet, _ := view["fleetQuery"].(map[string]any)
		switch {
		case view["scope"] != httpapi.ScopeInstance:
			t.Errorf("hosted %v: scope %v, want %s", hosted, view["scope"], httpapi.ScopeInstance)
		case hosted && (fleet["name"] != httpapi.FleetQueryName || fleet["table"] != httpapi.FleetQueryTable ||
			!strings.Contains(fmt.Sprint(fleet["hint"]), httpapi.FleetQueryName)):
			t.Errorf("under the host: fleetQuery %v, want the saved query %q over %s", view["fleetQuery"], httpapi.FleetQueryName, httpapi.FleetQueryTable)
		case !hosted && view["fleetQuery"] != nil:
			t.Errorf("standalone: fleetQuery %v, want none (one process sees all the load)", view["fleetQuery"])
		}
	}
}
