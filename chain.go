package todo

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Audited is the content of one version that its hash covers: what the
// audit record says about the change and the snapshot it recorded.
type Audited struct {
	EntityType string
	EntityID   string
	Version    int64
	Operation  Operation
	Actor      string
	At         time.Time
	Entity     Todo
}

// Hash returns the lowercase hex SHA-256 of prevHash followed by the
// canonical encoding of a. Every field is written as its UTF-8 byte length
// in decimal, a colon, and its bytes, in the order below; integers are
// decimal, booleans true or false, times UTC RFC 3339 with exactly nine
// fractional digits, and an absent time or string the empty string. Tags
// are their count, then each tag. The README documents the same list.
func (a *Audited) Hash(prevHash string) string {
	e := &a.Entity
	b := make([]byte, 0, 512)
	field := func(s string) {
		b = strconv.AppendInt(b, int64(len(s)), 10)
		b = append(b, ':')
		b = append(b, s...)
	}
	field(prevHash)
	field(a.EntityType)
	field(a.EntityID)
	field(strconv.FormatInt(a.Version, 10))
	field(string(a.Operation))
	field(a.Actor)
	field(canonicalTime(a.At))
	field(e.ID)
	field(e.Type)
	field(e.UserID)
	field(e.Category)
	field(e.Title)
	field(e.Notes)
	if e.DueDate != nil {
		field(canonicalTime(*e.DueDate))
	} else {
		field("")
	}
	field(strconv.Itoa(len(e.Tags)))
	for _, tag := range e.Tags {
		field(tag)
	}
	field(strconv.FormatBool(e.IsCompleted))
	field(strconv.FormatInt(e.Version, 10))
	field(canonicalTime(e.CreatedAt))
	field(canonicalTime(e.UpdatedAt))
	field(string(e.LastOperation))
	field(e.UpdatedBy)
	field(e.MovedFrom)
	field(e.MovingTo)
	field(e.PartitionKey)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func canonicalTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000000000Z")
}

// Seal makes t's current state the next link of its hash chain: the hash t
// was read with becomes PrevHash, and Hash covers the new content, with the
// operation, actor and time taken from t itself. The todo document keeps
// both, so the next write chains on without reading anything more.
func (t *Todo) Seal() {
	a := Audited{EntityType: EntityTypeTodo, EntityID: t.ID, Version: t.Version, Operation: t.LastOperation,
		Actor: t.UpdatedBy, At: t.UpdatedAt, Entity: *t}
	t.PrevHash, t.Hash = t.Hash, a.Hash(t.Hash)
}

// Audited returns the content r's hash covers. An entity with a property
// no todo has was not written by this code, so it is refused.
func (r *AuditRecord) Audited() (Audited, error) {
	a := Audited{EntityType: r.EntityType, EntityID: r.EntityID, Version: r.Version, Operation: r.Operation,
		Actor: r.Actor, At: r.DateCreatedUTC}
	dec := json.NewDecoder(bytes.NewReader(r.Entity))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a.Entity); err != nil {
		return a, fmt.Errorf("entity does not decode as a todo: %w", err)
	}
	return a, nil
}
