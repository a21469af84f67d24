package repo

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// token is the API's continuation token: which partition of the plan to
// resume in, the store's own opaque token within it, and a fingerprint of
// the query so that a token cannot be replayed against another query.
type token struct {
	Partition int    `json:"p,omitempty"`
	Store     string `json:"s,omitempty"`
	Query     string `json:"q"`
	// After is where a sorted query stopped.
	After *position `json:"a,omitempty"`
}

// position is the sort value (absent: undefined) and id of the last entity
// of a sorted page.
type position struct {
	Value json.RawMessage `json:"v,omitempty"`
	ID    string          `json:"id"`
}

// MaxTokenBytes bounds the continuation tokens accepted from callers.
const MaxTokenBytes = 8 * 1024

func encodeToken(t token) string {
	b, _ := json.Marshal(t)
	return base64.RawURLEncoding.EncodeToString(b)
}

func badToken() error {
	return todo.Errorf(todo.Invalid, "continuation token is malformed or belongs to another query")
}

// decodeToken parses s ("" = start) for a query with fingerprint fp over n
// partitions.
func decodeToken(s, fp string, n int) (token, error) {
	if s == "" {
		return token{Query: fp}, nil
	}
	if len(s) > MaxTokenBytes {
		return token{}, badToken()
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return token{}, badToken()
	}
	var t token
	if err := json.Unmarshal(raw, &t); err != nil || t.Query != fp || t.Partition < 0 || t.Partition >= n || !t.After.valid() {
		return token{}, badToken()
	}
	return t, nil
}

// valid reports whether a position is absent, or a valid id after a
// scalar value, as a sorted page ends.
func (p *position) valid() bool {
	if p == nil {
		return true
	}
	k := store.Seek{Order: store.Order{Field: "id"}, Value: p.Value, ID: p.ID}
	return todo.ValidateID(p.ID) == nil && k.Check() == nil
}

// fingerprint identifies a query's shape: partitions, filters and order.
func fingerprint(s Spec) string {
	h := fnv.New64a()
	var sort store.Order
	if s.Sort != nil {
		sort = *s.Sort
	}
	var after store.Seek
	if s.After != nil {
		after = *s.After
	}
	fmt.Fprintf(h, "%q|%#v|%#v|%v|%#v|%#v", s.Partitions, s.Filters, s.OrderBy, s.Sort != nil, sort, after)
	return fmt.Sprintf("%016x", h.Sum64())
}
