package app_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/todoaudit/todo/app"
	"github.com/todoaudit/todo/config"
	"github.com/todoaudit/todo/httpapi/invocation"
)

// Under the host the invocation endpoints answer the host alone, on its
// loopback port: a malformed invocation fails with 400, one over
// MAX_PAYLOAD_BYTES with 413 whether its length is given or it is chunked
// (as the host sends it). The limit is set at the lowest the handler
// accepts under the host, the largest batch AuditTrigger can be sent.
func TestPayloadLimits(t *testing.T) {
	limit, err := invocation.MinPayloadBytes()
	if err != nil {
		t.Fatal(err)
	}
	s := startHosted(t, map[string]string{"AUTH_MODE": "single", "MAX_PAYLOAD_BYTES": strconv.FormatInt(limit, 10)})
	for _, tc := range []struct {
		name, path, body string
		status           int
	}{
		{"invocation that is not JSON", "/AuditTrigger", `not json`, 400},
		{"invocation without documents", "/AuditTrigger", `{"Data":{},"Metadata":{}}`, 400},
		{"invocation with non-array documents", "/AuditTrigger", `{"Data":{"documents":"\"{}\""},"Metadata":{}}`, 400},
		{"invocation with a document that is not an object", "/AuditTrigger", `{"Data":{"documents":[1]}}`, 400},
		{"invocation with data after it", "/AuditTrigger", `{"Data":{"documents":"\"[]\""}} {}`, 400},
		{"reconcile that is not JSON", "/Reconcile", `[`, 400},
		{"empty batch", "/AuditTrigger", `{"Data":{"documents":"\"[]\""},"Metadata":{}}`, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want(t, s.Do("POST", tc.path, tc.body), tc.status)
		})
	}
	big := `{"Data":{"documents":"` + strings.Repeat("x", int(limit)) + `"}}`
	for _, chunked := range []bool{false, true} {
		var body io.Reader = strings.NewReader(big)
		if chunked {
			body = io.MultiReader(body)
		}
		req, _ := http.NewRequest("POST", s.Base+"/AuditTrigger", body)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 413 || resp.Header.Get("Content-Type") != "application/problem+json" || !bytes.Contains(b, []byte("too large")) {
			t.Fatalf("chunked %v: %d %s %s", chunked, resp.StatusCode, resp.Header.Get("Content-Type"), b)
		}
	}
}

// Under the host, a MAX_PAYLOAD_BYTES that the largest batch the host can
// send AuditTrigger would exceed stops start-up at once and says why.
func TestPayloadLimitBelowTheLargestBatch(t *testing.T) {
	cfg, err := config.Load(func(k string) (string, bool) {
		v, ok := map[string]string{"FUNCTIONS_CUSTOMHANDLER_PORT": "7071", "AUTH_MODE": "single",
			"DATA_DIR": t.TempDir(), "MAX_PAYLOAD_BYTES": "1048576"}[k]
		return v, ok
	})
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Start(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	if err == nil {
		_ = a.Close(context.Background())
		t.Fatal("the handler started with a payload limit below the largest AuditTrigger batch")
	}
	if !strings.Contains(err.Error(), "MAX_PAYLOAD_BYTES 1048576") || !strings.Contains(err.Error(), "maxItemsPerInvocation") {
		t.Fatalf("start-up refused with %q, which does not name the settings", err)
	}
}
