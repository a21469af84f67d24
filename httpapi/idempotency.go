package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/service"
)

// idempotencyHeader is the header of the IETF httpapi draft "The
// Idempotency-Key HTTP Header Field".
const idempotencyHeader = "Idempotency-Key"

// idempotentBody decodes a request body into v as body does and, when the
// request carries an Idempotency-Key, returns the key with the request's
// fingerprint: a hash of its method, path and body.
func (a *api) idempotentBody(r *http.Request, v any) (*service.Idempotency, error) {
	key, ok, err := idempotencyKey(r)
	if err != nil {
		return nil, err
	}
	body, err := decodeBody(r, a.MaxBodyBytes, v)
	if err != nil || !ok {
		return nil, err
	}
	h := sha256.New()
	h.Write([]byte(r.Method + "\x00" + r.URL.EscapedPath() + "\x00"))
	h.Write(body)
	return &service.Idempotency{Key: key, Fingerprint: hex.EncodeToString(h.Sum(nil))}, nil
}

// idempotencyKey reads the Idempotency-Key header: a structured-field
// string as the draft writes it ("…", with \" and \\ escapes), or the bare
// key; 1 to 255 printable ASCII characters either way.
func idempotencyKey(r *http.Request) (string, bool, error) {
	vs := r.Header.Values(idempotencyHeader)
	switch {
	case len(vs) == 0:
		return "", false, nil
	case len(vs) > 1:
		return "", false, todo.Errorf(todo.Invalid, "Idempotency-Key is given more than once")
	}
	key := vs[0]
	if len(key) >= 2 && key[0] == '"' && key[len(key)-1] == '"' {
		var b strings.Builder
		for i := 1; i < len(key)-1; i++ {
			c := key[i]
			switch {
			case c == '\\' && i+1 < len(key)-1 && (key[i+1] == '"' || key[i+1] == '\\'):
				i++
				c = key[i]
			case c == '"' || c == '\\':
				return "", false, todo.Errorf(todo.Invalid, "Idempotency-Key is not a valid quoted string")
			}
			b.WriteByte(c)
		}
		key = b.String()
	}
	return key, true, service.CheckIdempotencyKey(key)
}
