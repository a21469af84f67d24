package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/health"
	"github.com/todoaudit/todo/internal/header"
)

// healthBody is the body of /api/health.
type healthBody struct {
	Status string       `json:"status"`
	Store  string       `json:"store"`
	Scheme string       `json:"scheme"`
	Audit  health.Audit `json:"audit"`
}

func (a *api) health(_ context.Context, w http.ResponseWriter, _ *http.Request, _ string) error {
	st := a.Health()
	body := healthBody{Status: string(st.State), Store: a.StoreName, Scheme: a.Service.Scheme().Name(), Audit: st.Audit}
	code := http.StatusOK
	if st.State != health.OK {
		// A degraded handler names the cause where the store's name was.
		code, body.Store = http.StatusServiceUnavailable, st.Cause
		w.Header().Set("Retry-After", "5")
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, code, body)
	return nil
}

// openAPIETag is the entity tag of the served contract: a digest of it,
// so that it changes exactly when the document does.
var openAPIETag = func() string {
	sum := sha256.Sum256(todo.OpenAPI)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}()

// openAPI serves the API's contract, openapi.json, as built into the
// handler.
func (a *api) openAPI(_ context.Context, w http.ResponseWriter, r *http.Request, _ string) error {
	h := w.Header()
	h.Set("ETag", openAPIETag)
	h.Set("Cache-Control", "no-cache")
	if noneMatch(header.Get(r.Header, "If-None-Match"), openAPIETag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	writeBytes(w, http.StatusOK, todo.OpenAPI)
	return nil
}
