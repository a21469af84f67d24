package header

import (
	"net/http"
	"testing"
)

func TestGet(t *testing.T) {
	h := http.Header{}
	h.Set("If-None-Match", `"a"`)
	h.Add("If-None-Match", `"b"`)
	if got := Get(h, "If-None-Match"); got != `"a"` {
		t.Errorf("Get = %q, want the first value", got)
	}
	if got := Get(h, "If-Match"); got != "" {
		t.Errorf("Get of a missing header = %q", got)
	}
}
