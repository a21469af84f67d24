// Package header reads request headers by keys already in canonical form,
// without http.Header.Get's canonicalization of the key on every call: a
// request's path reads several headers, and canonicalizing their keys
// costs a point read more than the lookups themselves.
package header

import "net/http"

// Get returns the first value of the header key, which must be in
// canonical form (http.CanonicalHeaderKey(key) == key), or "".
func Get(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}
