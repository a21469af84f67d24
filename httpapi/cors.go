package httpapi

import (
	"net/http"
	"slices"
	"strings"

	"github.com/rs/cors"

	"github.com/todoaudit/todo/auth"
)

// CORS is the policy for browser pages of other origins calling the API.
type CORS struct {
	// AllowedOrigins are the exact origins (scheme://host[:port]) whose
	// pages may call the API, or "*" for any; none: no CORS answers.
	AllowedOrigins []string
	// AllowCredentials lets those pages send cookies (an App Service
	// Authentication session); never with "*".
	AllowCredentials bool
}

// corsRequestHeaders are the request headers a page may send: the API's
// own, the credentials of every auth mode and the trace context.
var corsRequestHeaders = []string{"Authorization", "Content-Type", "If-Match", "If-None-Match", "Idempotency-Key",
	"X-User-Id", "X-Functions-Key", "Traceparent", "Tracestate"}

// corsExposedHeaders are the response headers a page may read beyond the
// safelisted ones: what a client needs to act on an answer.
var corsExposedHeaders = []string{"ETag", "Location", "Retry-After", "X-Request-Charge", "X-Query-Scope", "Allow", "WWW-Authenticate"}

// withCORS puts the policy in front of h. A preflight from an allowed
// origin gets the CORS headers and goes on to the router, which answers
// OPTIONS 204 with Allow on a path of the route table (404 elsewhere); one
// from any other origin gets the same answer without CORS headers, which
// the browser takes as a refusal. Every other answer carries Vary: Origin.
// The log's anonymous reads are open to every origin whatever the policy
// (see publicLogRead).
func withCORS(h http.Handler, c CORS) http.Handler {
	policy := h
	if len(c.AllowedOrigins) > 0 {
		policy = allowOrigins(h, c)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if publicLogRead(r) {
			w.Header().Set("Access-Control-Allow-Origin", "*")
			h.ServeHTTP(w, r)
			return
		}
		policy.ServeHTTP(w, r)
	})
}

// publicLogRead reports whether r reads one of the log's anonymous routes
// (its checkpoint, key, tiles and consistency proofs): what an auditor's
// page checks an export against, from any origin or opened from disk
// (origin null). They need no credentials and answer the same to anyone,
// so any page may read them; no other route is opened so.
func publicLogRead(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	for i := range Routes {
		rt := &Routes[i]
		if rt.Access != auth.Anyone || rt.Method != http.MethodGet || !strings.HasPrefix(rt.Path, "/api/log/") {
			continue
		}
		if prefix, ok := strings.CutSuffix(rt.Path, restSegment); ok {
			if strings.HasPrefix(r.URL.Path, prefix) && len(r.URL.Path) > len(prefix) {
				return true
			}
		} else if r.URL.Path == rt.Path {
			return true
		}
	}
	return false
}

// allowOrigins is the policy's own CORS answers, for its origins.
func allowOrigins(h http.Handler, c CORS) http.Handler {
	return cors.New(cors.Options{
		AllowedOrigins:     c.AllowedOrigins,
		AllowedMethods:     routeMethods(),
		AllowedHeaders:     corsRequestHeaders,
		ExposedHeaders:     corsExposedHeaders,
		AllowCredentials:   c.AllowCredentials,
		MaxAge:             600,
		OptionsPassthrough: true,
	}).Handler(h)
}

// routeMethods are the methods of the route table.
func routeMethods() []string {
	var ms []string
	for _, rt := range Routes {
		for _, m := range rt.Methods() {
			if !slices.Contains(ms, m) {
				ms = append(ms, m)
			}
		}
	}
	return ms
}
