package repo

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"

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

// position is the sort value (absent: undefined), id and partition key of
// the last entity of a sorted page (a token written before the partition
// key was kept has none, and resumes as it did).
type position struct {
	Value json.RawMessage    `json:"v,omitempty"`
	ID    string             `json:"id"`
	PK    store.PartitionKey `json:"k,omitempty"`
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
// Every part is written length-prefixed, so that no two shapes write the
// same bytes; a filter's value with its Go type, which the store compares
// by.
func fingerprint(s Spec) string {
	var b []byte
	str := func(v string) {
		b = strconv.AppendInt(b, int64(len(v)), 10)
		b = append(b, ':')
		b = append(b, v...)
	}
	order := func(o store.Order) {
		str(o.Field)
		b = strconv.AppendBool(b, o.Desc)
	}
	b = strconv.AppendInt(b, int64(len(s.Partitions)), 10)
	for _, pk := range s.Partitions {
		b = strconv.AppendInt(b, int64(len(pk)), 10)
		for _, v := range pk {
			str(v)
		}
	}
	b = strconv.AppendInt(b, int64(len(s.Filters)), 10)
	for _, f := range s.Filters {
		str(f.Field)
		b = strconv.AppendInt(b, int64(f.Op), 10)
		switch v := f.Value.(type) {
		case string:
			str("string")
			str(v)
		case int64:
			str("int64")
			str(strconv.FormatInt(v, 10))
		case bool:
			str("bool")
			b = strconv.AppendBool(b, v)
		default:
			str(fmt.Sprintf("%T", v))
			str(fmt.Sprintf("%#v", v))
		}
	}
	b = strconv.AppendInt(b, int64(len(s.OrderBy)), 10)
	for _, o := range s.OrderBy {
		order(o)
	}
	if s.Sort != nil {
		b = append(b, 's')
		order(*s.Sort)
	}
	if s.After != nil {
		b = append(b, 'a')
		order(s.After.Order)
		str(string(s.After.Value))
		str(s.After.ID)
	}
	h := fnv.New64a()
	_, _ = h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}
