package app_test

import (
	"testing"

	"github.com/todoaudit/todo/auth"
	"github.com/todoaudit/todo/auth/authtest"
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
