package bolt

import (
	"encoding/binary"
	"encoding/json"
	"slices"
	"strings"

	"github.com/todoaudit/todo/store"
)

func binaryLSN(k []byte) uint64 { return binary.BigEndian.Uint64(k) }

func sortRows[T any](rows []T, cmp func(a, b T) int) { slices.SortStableFunc(rows, cmp) }

// matchFields applies Cosmos DB comparison rules: a missing property or a
// value of a different type makes the comparison undefined, which filters
// the item out.
func matchFields(fields map[string]json.RawMessage, filters []store.Filter) bool {
	for _, f := range filters {
		raw, ok := fields[f.Field]
		switch f.Op {
		case store.IsDefined:
			if !ok {
				return false
			}
			continue
		case store.NotDefined:
			if ok {
				return false
			}
			continue
		case store.ContainsFold:
			if !ok || !containsFold(raw, f.Value.(string)) {
				return false
			}
			continue
		case store.ArrayContains:
			if !ok || !arrayContains(raw, f.Value) {
				return false
			}
			continue
		}
		if !ok {
			return false
		}
		d, comparable := compareValue(raw, f.Value)
		if !comparable {
			return false
		}
		var pass bool
		switch f.Op {
		case store.Eq:
			pass = d == 0
		case store.Ne:
			pass = d != 0
		case store.Lt:
			pass = d < 0
		case store.Le:
			pass = d <= 0
		case store.Gt:
			pass = d > 0
		case store.Ge:
			pass = d >= 0
		}
		if !pass {
			return false
		}
	}
	return true
}

// containsFold reports whether raw is a string that contains sub,
// ignoring case.
func containsFold(raw json.RawMessage, sub string) bool {
	var s string
	return json.Unmarshal(raw, &s) == nil && strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// arrayContains reports whether raw is an array with an element equal to
// want (of the same JSON type).
func arrayContains(raw json.RawMessage, want any) bool {
	var elems []json.RawMessage
	if json.Unmarshal(raw, &elems) != nil {
		return false
	}
	for _, e := range elems {
		if d, ok := compareValue(e, want); ok && d == 0 {
			return true
		}
	}
	return false
}

// compareValue compares a stored JSON value with a filter value of the same
// JSON type; ok is false when the types differ.
func compareValue(raw json.RawMessage, want any) (int, bool) {
	switch w := want.(type) {
	case string:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
		return strings.Compare(s, w), true
	case bool:
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return 0, false
		}
		return boolInt(b) - boolInt(w), true
	case int64:
		return compareNumber(raw, float64(w))
	case float64:
		return compareNumber(raw, w)
	}
	return 0, false
}

func compareNumber(raw json.RawMessage, w float64) (int, bool) {
	var n float64
	if json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	switch {
	case n < w:
		return -1, true
	case n > w:
		return 1, true
	}
	return 0, true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// typeRank orders JSON values of different types the way Cosmos DB's ORDER BY
// does.
func typeRank(raw json.RawMessage) int { return store.TypeRank(raw) }
