package httpapi

import (
	"net/http"
	"slices"

	"github.com/rs/cors"
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
func withCORS(h http.Handler, c CORS) http.Handler {
	if len(c.AllowedOrigins) == 0 {
		return h
	}
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
