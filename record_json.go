package todo

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/todoaudit/todo/internal/jsonstr"
)

// AppendJSON appends r encoded as json.Marshal encodes it, property for
// property, without its reflection and without compacting the entity
// again: every write stores at least one record, and encoding/json spent
// most of a record's encoding scanning an entity it had itself written.
// r.Entity is written as it is, so it must be compact JSON, as
// json.Marshal writes it (NewAuditRecord's, an erasure's); a store checks
// every document it is given, so an entity that is not JSON is refused
// there. The test holds the two encodings equal for every property.
func (r *AuditRecord) AppendJSON(b []byte) ([]byte, error) {
	b = appendMember(b, `{"id":`, r.ID)
	b = appendMember(b, `,"entityKey":`, r.EntityKey)
	b = appendMember(b, `,"entityId":`, r.EntityID)
	b = appendMember(b, `,"entityType":`, r.EntityType)
	b = strconv.AppendInt(append(b, `,"version":`...), r.Version, 10)
	b = appendMember(b, `,"operation":`, string(r.Operation))
	b = append(b, `,"entity":`...)
	switch {
	case r.Entity == nil:
		b = append(b, "null"...)
	case len(r.Entity) == 0:
		return nil, errors.New("todo: audit record with an empty entity")
	default:
		b = append(b, r.Entity...)
	}
	b = append(b, `,"dateCreatedUtc":"`...)
	b, err := r.DateCreatedUTC.AppendText(b) // what its MarshalJSON quotes
	if err != nil {
		return nil, err
	}
	b = append(b, '"')
	b = appendMember(b, `,"actor":`, r.Actor)
	b = appendMember(b, `,"prevHash":`, r.PrevHash)
	b = appendMember(b, `,"hash":`, r.Hash)
	if r.Chain != 0 {
		b = strconv.AppendInt(append(b, `,"chain":`...), int64(r.Chain), 10)
	}
	b = appendOmitEmpty(b, `,"seed":`, r.Seed)
	if len(r.Commitments) > 0 {
		c, err := json.Marshal(r.Commitments)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"commitments":`...), c...)
	}
	if len(r.Erased) > 0 {
		b = append(b, `,"erased":[`...)
		for i, name := range r.Erased {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonstr.Append(b, name, jsonstr.JSON)
		}
		b = append(b, ']')
	}
	b = appendOmitEmpty(b, `,"owner":`, r.Owner)
	b = appendOmitEmpty(b, `,"category":`, r.Category)
	b = appendOmitEmpty(b, `,"at":`, r.At)
	return append(b, '}'), nil
}

// appendMember appends key (with its comma and colon) and the string s.
func appendMember(b []byte, key, s string) []byte {
	return jsonstr.Append(append(b, key...), s, jsonstr.JSON)
}

// appendOmitEmpty is appendMember for a property tagged omitempty.
func appendOmitEmpty(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return appendMember(b, key, s)
}
