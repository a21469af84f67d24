package app_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"testing"

	"github.com/todoaudit/todo/auth"
	"github.com/todoaudit/todo/auth/authtest"
	"github.com/todoaudit/todo/azfunc"
)

// Requests as the Functions host forwards them: the original /api path, the
// host's headers, the function key in ?code= and x-functions-key, repeated
// query keys joined with commas, and EasyAuth's principal header.
func TestHostMode(t *testing.T) {
	s := startHosted(t, map[string]string{"AUTH_MODE": "easyauth", "PARTITION_SCHEME": "category"})
	s.User = ""
	s.Header = map[string]string{
		"X-Azure-Functions-HostVersion":  "4.1045.200.25556",
		"X-Azure-Functions-InvocationId": "6f3b2a1c-0000-4000-8000-000000000001",
		"User-Agent":                     "curl/8.5.0 Azure-Functions-Host/4.1045.200.25556",
		"x-functions-key":                "c2VjcmV0LWtleQ==",
		"Host":                           "myapp.azurewebsites.net",
	}
	// No EasyAuth principal: 401.
	want(t, s.Do("GET", "/api/todos?code=key", nil), 401)
	alice := s.As("")
	alice.Header = map[string]string{
		auth.PrincipalIDHeader: "8f1e2d3c-aaaa-4bbb-8ccc-123456789abc",
		auth.PrincipalHeader:   authtest.Principal("8f1e2d3c-aaaa-4bbb-8ccc-123456789abc"),
	}
	for k, v := range s.Header {
		alice.Header[k] = v
	}
	td := want(t, alice.Do("POST", "/api/todos?code=key", map[string]any{"category": "Grocery", "title": "milk"}), 201).JSON(t)
	if td["userId"] != "8f1e2d3c-aaaa-4bbb-8ccc-123456789abc" {
		t.Fatalf("user from EasyAuth: %v", td)
	}
	want(t, alice.Do("GET", "/api/todos/"+td["id"].(string)+"?code=key", nil), 200)
	if items := alice.ListAll("/api/todos?category=Grocery&code=key"); len(items) != 1 {
		t.Fatalf("list with ?code=: %v", items)
	}
	// The host rebuilds the query with repeated keys comma-joined.
	for _, q := range []string{"category=Grocery%2CWork", "isCompleted=true%2Cfalse", "pageSize=5%2C6", "category=Grocery&category=Work"} {
		want(t, alice.Do("GET", "/api/todos?"+q, nil), 400)
	}
	// The payload-mode functions answer on /{FunctionName}.
	want(t, alice.Do("POST", "/AuditTrigger", `{"Data":{"documents":"\"[]\""},"Metadata":{"sys":{"MethodName":"AuditTrigger"}}}`), 200)
	want(t, alice.Do("POST", "/Reconcile", `{"Data":{"timer":{"IsPastDue":false}},"Metadata":{"sys":{"MethodName":"Reconcile"}}}`), 200)
	// Health is anonymous.
	want(t, s.Do("GET", "/api/health", nil), 200)
}

// Under the host the log is integrated when the audit container changes
// (LogIntegrator, a Cosmos DB trigger on it) and by the hourly Reconcile
// timer as a safety net: both invocations run a pass of the integrator.
func TestHostIntegratesOnChange(t *testing.T) {
	s := startHosted(t, map[string]string{"AUTH_MODE": "easyauth"})
	for _, inv := range []struct{ function, body string }{
		{"LogIntegrator", `{"Data":{"records":"\"[]\""},"Metadata":{"sys":{"MethodName":"LogIntegrator"}}}`},
		{"Reconcile", `{"Data":{"timer":{"IsPastDue":false}},"Metadata":{"sys":{"MethodName":"Reconcile"}}}`},
	} {
		r := want(t, s.Do("POST", "/"+inv.function, inv.body), 200)
		if !bytes.Contains(r.Body, []byte("transparency log:")) {
			t.Errorf("%s ran no pass of the log's integrator: %s", inv.function, r.Body)
		}
	}
}

// The host's exact invocation of AuditTrigger, the captured golden
// payload, sent as the host sends it (chunked, with its invocation id)
// through the real route on the host's port, gets the trigger's golden
// answer byte for byte.
func TestHostInvocationGolden(t *testing.T) {
	s := startHosted(t, map[string]string{"AUTH_MODE": "easyauth"})
	inv, err := os.ReadFile("../azfunc/testdata/cosmos-trigger-v4.json")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("../httpapi/invocation/testdata/audit-trigger-response.json")
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, s.Base+"/AuditTrigger", io.MultiReader(bytes.NewReader(inv)))
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set(azfunc.InvocationIDHeader, "0d2c9a4e-5a7b-4f6e-8a59-3c1f2f0a9e77")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || !bytes.Equal(body, golden) {
		t.Fatalf("status %d, Content-Type %q:\n got %s\nwant %s", resp.StatusCode, resp.Header.Get("Content-Type"), body, golden)
	}
}
