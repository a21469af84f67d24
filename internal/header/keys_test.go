package header_test

import (
	"net/http"
	"testing"

	"github.com/todoaudit/todo/auth"
	"github.com/todoaudit/todo/azfunc"
)

// The keys the handler reads with Get are canonical: a key that is not
// would never be found.
func TestKeysAreCanonical(t *testing.T) {
	for _, k := range []string{azfunc.InvocationIDHeader, auth.DevUserHeader, "Traceparent", "If-Match", "If-None-Match"} {
		if c := http.CanonicalHeaderKey(k); c != k {
			t.Errorf("%q is not canonical (%q)", k, c)
		}
	}
}
