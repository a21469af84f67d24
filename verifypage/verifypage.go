// Package verifypage serves the standalone verifier: one self-contained
// HTML file (built from web/src/verify by build-page.mjs, committed) that
// checks an audit export in the browser and that an auditor can keep and
// open from disk. The handler serves it at Path, with the
// Content-Security-Policy its own meta element declares.
package verifypage

import (
	_ "embed"
	"net/http"
	"regexp"
)

// Path is the page's stable URL.
const Path = "/verify.html"

//go:embed verify.html
var page []byte

// csp is the policy of the page's meta element: its inlined script and
// style by hash, and fetches to the log the auditor names.
var csp = func() string {
	m := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]+)">`).FindSubmatch(page)
	if m == nil {
		panic("verifypage: verify.html declares no Content-Security-Policy") // the build writes one
	}
	return string(m[1])
}()

// Handler answers GET and HEAD of Path with the page and passes every
// other request to next.
func Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != Path || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		if r.Method == http.MethodGet {
			_, _ = w.Write(page) // a client gone away is no error of the page's
		}
	})
}
