package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// The log's anonymous reads answer every origin, a page opened from disk
// (origin null) included, whatever the policy; every other route keeps
// the policy's answer.
func TestPublicLogReadsAreOpenToEveryOrigin(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	for _, policy := range []CORS{{}, {AllowedOrigins: []string{"https://app.example"}, AllowCredentials: true}} {
		h := withCORS(ok, policy)
		for _, c := range []struct {
			method, path, origin, want string
		}{
			{http.MethodGet, "/api/log/checkpoint", "null", "*"},
			{http.MethodGet, "/api/log/key", "https://auditor.example", "*"},
			{http.MethodGet, "/api/log/tile/0/000.p/3", "null", "*"},
			{http.MethodHead, "/api/log/consistency", "null", "*"},
			{http.MethodGet, "/api/log/tile/", "null", ""},
			{http.MethodPost, "/api/log/checkpoint", "null", ""},
			{http.MethodGet, "/api/manage/log/verify", "null", ""},
			{http.MethodGet, "/api/todos", "null", ""},
			{http.MethodGet, "/api/todos", "https://auditor.example", ""},
		} {
			req := httptest.NewRequest(c.method, c.path, nil)
			req.Header.Set("Origin", c.origin)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if got := rec.Header().Get("Access-Control-Allow-Origin"); got != c.want {
				t.Errorf("policy %v: %s %s from %s: Access-Control-Allow-Origin %q, want %q", policy.AllowedOrigins, c.method, c.path, c.origin, got, c.want)
			}
		}
		req := httptest.NewRequest(http.MethodGet, "/api/todos", nil)
		req.Header.Set("Origin", "https://app.example")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if want := map[bool]string{true: "https://app.example"}[len(policy.AllowedOrigins) > 0]; rec.Header().Get("Access-Control-Allow-Origin") != want {
			t.Errorf("policy %v: the allowed origin's answer is %q, want %q", policy.AllowedOrigins, rec.Header().Get("Access-Control-Allow-Origin"), want)
		}
	}
}
