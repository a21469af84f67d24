package store

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Type ranks of JSON values, in the order ORDER BY sorts values of
// different types: undefined, null, booleans, numbers, strings, then
// objects and arrays (by their JSON).
const (
	RankUndefined = iota
	RankNull
	RankBool
	RankNumber
	RankString
	RankOther
)

// TypeRank returns the rank of a JSON value; nil or empty is undefined.
func TypeRank(raw json.RawMessage) int {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return RankUndefined
	}
	switch raw[0] {
	case 'n':
		return RankNull
	case 't', 'f':
		return RankBool
	case '"':
		return RankString
	case '{', '[':
		return RankOther
	}
	return RankNumber
}

// CompareJSON compares two JSON values (nil: undefined) as ORDER BY
// sorts them: by type rank, then booleans false first, numbers by value,
// strings by their UTF-8 bytes.
func CompareJSON(a, b json.RawMessage) int {
	ra, rb := TypeRank(a), TypeRank(b)
	if ra != rb {
		return ra - rb
	}
	switch ra {
	case RankBool:
		return int(bytes.TrimSpace(a)[0]) - int(bytes.TrimSpace(b)[0]) // "f" < "t"
	case RankNumber:
		var x, y float64
		_ = json.Unmarshal(a, &x)
		_ = json.Unmarshal(b, &y)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case RankString:
		var x, y string
		_ = json.Unmarshal(a, &x)
		_ = json.Unmarshal(b, &y)
		return strings.Compare(x, y)
	case RankOther:
		return bytes.Compare(bytes.TrimSpace(a), bytes.TrimSpace(b))
	}
	return 0
}

// Compare compares two items by their value of o's property, then their
// ids, in o's direction: negative when the first comes first.
func (o Order) Compare(av json.RawMessage, aid string, bv json.RawMessage, bid string) int {
	d := CompareJSON(av, bv)
	if d == 0 {
		d = strings.Compare(aid, bid)
	}
	if o.Desc {
		return -d
	}
	return d
}

// Follows reports whether an item whose property holds v (nil:
// undefined) and whose id is id comes after the position k.
func (k *Seek) Follows(v json.RawMessage, id string) bool {
	return k.Order.Compare(v, id, k.Value, k.ID) > 0
}
