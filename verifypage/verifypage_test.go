package verifypage

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestServesThePageWithItsPolicy(t *testing.T) {
	next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	h := Handler(next)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, Path, nil))
	if rec.Code != http.StatusOK || !bytes.Equal(rec.Body.Bytes(), page) {
		t.Fatalf("GET %s: %d, %d bytes; want 200 and the page", Path, rec.Code, rec.Body.Len())
	}
	policy := rec.Header().Get("Content-Security-Policy")
	if !strings.Contains(policy, "script-src 'sha256-") || strings.Contains(policy, "unsafe-inline") {
		t.Errorf("policy %q does not allow the inlined script by its hash alone", policy)
	}
	if got := rec.Header().Get("Content-Type"); got != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", got)
	}
	for _, req := range []*http.Request{httptest.NewRequest(http.MethodPost, Path, nil), httptest.NewRequest(http.MethodGet, "/verify", nil)} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusTeapot {
			t.Errorf("%s %s: %d, want it passed on", req.Method, req.URL.Path, rec.Code)
		}
	}
}
