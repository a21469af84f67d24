package httpapi

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/todoaudit/todo/problem"
)

// net/http's own refusals come out as problem+json; handlers' answers pass
// through untouched, even a plain-text 400.
func TestListenerRewritesServerErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "plain", http.StatusBadRequest)
	})}
	go func() { _ = srv.Serve(Listener(ln)) }()
	t.Cleanup(func() { _ = srv.Close() })

	for _, tc := range []struct {
		name, request string
		status        int
		problem       bool
	}{
		{"malformed escape", "GET /api/todos/%zz HTTP/1.1\r\nHost: x\r\n\r\n", 400, true},
		{"bad header line", "GET / HTTP/1.1\r\nHost: x\r\nno colon\r\n\r\n", 400, true},
		{"missing Host", "GET / HTTP/1.1\r\n\r\n", 400, true},
		{"unknown transfer coding", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501, true},
		{"handler's own answer", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 400, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := io.WriteString(c, tc.request); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			ct := resp.Header.Get("Content-Type")
			if !tc.problem {
				if ct != "text/plain; charset=utf-8" {
					t.Fatalf("a handler's answer was rewritten: %s %s", ct, body)
				}
				return
			}
			var p problem.Problem
			if ct != "application/problem+json" || json.Unmarshal(body, &p) != nil || p.Status != tc.status || p.Detail == "" {
				t.Fatalf("%s %s", ct, body)
			}
		})
	}
}
