package hashchain

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/jsondoc"
)

// EraseVersion erases the field name of the version (see todo.Erase),
// whose seed, if it has one, gives way to its commitments.
func EraseVersion(v *todo.Version, name string) error {
	if err := ExpandVersion(v); err != nil {
		return err
	}
	return todo.Erase(&v.Entity, v.Commitments, name)
}

// ExpandVersion replaces v's seed, if it has one, with the commitments it
// stands for: what an erasure changes, and what it must not leave behind
// (the seed gives every salt, the erased field's too).
func ExpandVersion(v *todo.Version) error {
	if v.Seed == "" {
		return nil
	}
	c, err := chainOfTodo.fromSeed(reflect.ValueOf(&v.Entity).Elem(), v.Chain, v.Seed, v.Commitments)
	if err != nil {
		return err
	}
	v.Commitments, v.Seed = c, ""
	return nil
}

// ErasePersonalVersion erases the personal fields of the version (see
// todo.ErasePersonal), in place of its seed.
func ErasePersonalVersion(v *todo.Version) (bool, error) {
	if err := ExpandVersion(v); err != nil {
		return false, err
	}
	return todo.ErasePersonal(&v.Entity, v.Commitments)
}

// EraseRecord erases the field name of the record (see todo.Erase).
func EraseRecord(r *todo.AuditRecord, name string) error {
	a, err := Content(r)
	if err != nil {
		return err
	}
	if err := todo.Erase(&a.Entity, a.Commitments, name); err != nil {
		return err
	}
	return setErased(r, &a)
}

// ErasePersonalRecord erases the personal fields of the record (see
// todo.ErasePersonal), in place of its seed, and lists the erased fields
// in r.Erased.
func ErasePersonalRecord(r *todo.AuditRecord) (bool, error) {
	a, err := Content(r)
	if err != nil {
		return false, err
	}
	changed, err := todo.ErasePersonal(&a.Entity, a.Commitments)
	if err != nil || !changed {
		return false, err
	}
	return true, setErased(r, &a)
}

// set makes r hold a's entity and commitments, in place of a seed: the
// same fields erased as r says, since a's commitments are r's own or
// those its seed gives, of which none is erased.
func set(r *todo.AuditRecord, a *Audited) error {
	entity, err := todo.MarshalJSON(a.Entity)
	if err != nil {
		return err
	}
	r.Entity, r.Commitments, r.Seed = entity, a.Commitments, ""
	return nil
}

// setErased is set of a whose fields were just erased, which r then
// lists as erased.
func setErased(r *todo.AuditRecord, a *Audited) error {
	if err := set(r, a); err != nil {
		return err
	}
	r.Erased = r.Commitments.ErasedNames()
	return nil
}

// ExpandRecord replaces r's seed, if it has one, with the commitments it
// stands for (see ExpandVersion): how a record is served.
func ExpandRecord(r *todo.AuditRecord) error {
	if r.Seed == "" {
		return nil
	}
	a, err := Content(r)
	if err != nil {
		return err
	}
	r.Erased = nil // a seed stands for commitments with none erased
	return set(r, &a)
}

// Content returns the content r's hash covers, its commitments computed
// from its seed when it stores one. The entity is decoded as strictly as a
// request body: an entity with a property no todo has, a member given
// twice or a name in another case was not written by this code, so it is
// refused.
func Content(r *todo.AuditRecord) (Audited, error) {
	a, _, err := content(r)
	return a, err
}

// Verified is Content, then the content verified against r's own links
// (Audited.Verify): an *UnverifiedError when it is not what r's hash
// covers. Commitments computed from r's seed are not checked against the
// entity they were just computed from (see verify).
func Verified(r *todo.AuditRecord) (Audited, error) {
	if r.Seed != "" {
		// The commitments derived once, for the hash and to be served.
		a, err := undecided(r)
		if err != nil {
			return a, err
		}
		var d Derived
		if err := chainOfTodo.verifySealed(&a, r, &d); err != nil {
			return a, err
		}
		a.Commitments = d.Commitments()
		return a, nil
	}
	a, derived, err := content(r)
	if err != nil {
		return a, err
	}
	if err := chainOfTodo.verify(&a, reflect.ValueOf(&a.Entity).Elem(), r.PrevHash, r.Hash, derived); err != nil {
		return a, &UnverifiedError{Err: err}
	}
	return a, nil
}

// UnverifiedError is why a record that decodes is not what its hash
// covers.
type UnverifiedError struct{ Err error }

func (e *UnverifiedError) Error() string { return e.Err.Error() }
func (e *UnverifiedError) Unwrap() error { return e.Err }

// content is Content, and whether the commitments were computed from r's
// seed.
func content(r *todo.AuditRecord) (Audited, bool, error) {
	a, err := undecided(r)
	if err != nil {
		return a, false, err
	}
	if r.Seed == "" {
		return a, false, nil
	}
	c, err := chainOfTodo.fromSeed(reflect.ValueOf(&a.Entity).Elem(), r.Chain, r.Seed, r.Commitments)
	if err != nil {
		return a, false, err
	}
	a.Commitments = c
	return a, true, nil
}

// undecided is the content r's hash covers with its stored commitments,
// none when it stores a seed: its entity decoded strictly.
func undecided(r *todo.AuditRecord) (Audited, error) {
	a := Audited{EntityType: r.EntityType, EntityID: r.EntityID, Version: r.Version, Operation: r.Operation,
		Actor: r.Actor, At: r.DateCreatedUTC, Chain: r.Chain, Commitments: r.Commitments}
	if err := jsondoc.UnmarshalStrict(r.Entity, &a.Entity); err != nil {
		return a, fmt.Errorf("entity does not decode as a todo: %w", err)
	}
	return a, nil
}

// storedRecord is an audit record as a store returns it: its own
// properties and the store's system properties, nothing else. The system
// properties are only allowed, never read, so they are kept as the bytes
// they are (an _etag is a quoted string with escapes in it).
type storedRecord struct {
	todo.AuditRecord
	RID         json.RawMessage `json:"_rid"`
	Self        json.RawMessage `json:"_self"`
	ETag        json.RawMessage `json:"_etag"`
	Attachments json.RawMessage `json:"_attachments"`
	TS          json.RawMessage `json:"_ts"`
	LSN         json.RawMessage `json:"_lsn"`
}

// DecodeRecord decodes an audit record as stored, as strictly as a request
// body (see jsondoc.UnmarshalStrict): a record with a property this code never
// writes (beyond the store's system properties), a member given twice or a
// name in another case is refused, in the record, its entity and its
// commitments alike. It returns the record, its entity re-encoded from
// the decoded todo (so that what is served is what was checked), and the
// content its hash covers. The record returned holds commitments, not the
// seed it may store them as.
func DecodeRecord(data []byte) (todo.AuditRecord, Audited, error) {
	return decodeRecord(data, Content)
}

// DecodeVerifiedRecord is DecodeRecord, then the content verified against
// the record's own links, as Verified verifies it: an *UnverifiedError
// when the record decodes but is not what its hash covers.
func DecodeVerifiedRecord(data []byte) (todo.AuditRecord, Audited, error) {
	return decodeRecord(data, Verified)
}

// DecodeSealedRecord is DecodeVerifiedRecord for a record passed on as it
// is stored: one stored with its seed keeps it, and its hash is checked
// from the digests the seed gives as they are computed (as Seal computes
// it), without the commitments' map and their hex, which nothing reads.
// The content returned then has no commitments: a version with a seed
// has no field erased. A record stored with its commitments is decoded as
// DecodeVerifiedRecord decodes it.
func DecodeSealedRecord(data []byte) (todo.AuditRecord, Audited, error) {
	return decodeSealed(data, nil)
}

// DecodeServedRecord is DecodeSealedRecord for a record served in the
// first form, with its commitments: one stored with its seed and verified
// comes with the commitments the seed gives as Derived, which its answer
// writes in place of the seed (see todo.AuditRecord.AppendJSONWith).
// Others come without, as DecodeSealedRecord returns them: one stored
// with its commitments holds them, and one that does not verify is served
// as it is stored.
func DecodeServedRecord(data []byte) (todo.AuditRecord, Audited, Derived, error) {
	var d Derived
	r, a, err := decodeSealed(data, &d)
	return r, a, d, err
}

// decodeSealed is DecodeSealedRecord, the commitments a seed gives kept in
// into when it is not nil.
func decodeSealed(data []byte, into *Derived) (todo.AuditRecord, Audited, error) {
	var s storedRecord
	if err := jsondoc.UnmarshalStrict(data, &s); err != nil {
		return s.AuditRecord, Audited{}, fmt.Errorf("it does not decode as an audit record: %w", err)
	}
	r := s.AuditRecord
	r.Erased = r.Commitments.ErasedNames()
	if r.Seed == "" {
		a, err := Verified(&r)
		if err != nil {
			return r, a, err
		}
		return r, a, set(&r, &a)
	}
	a, err := undecided(&r)
	if err != nil {
		return r, a, err
	}
	if err := chainOfTodo.verifySealed(&a, &r, into); err != nil {
		if into != nil {
			*into = Derived{}
		}
		return r, a, err
	}
	r.Entity, err = todo.MarshalJSON(a.Entity)
	return r, a, err
}

// verifySealed is verify of a, the content of r, which is stored with its
// seed in place of its commitments: every field its encoding does not list
// must be zero, and the hash must be sealHash's. The commitments the seed
// gives are kept in into, when not nil. A content that is not what the
// hash covers is an *UnverifiedError.
func (c *boundChain) verifySealed(a *Audited, r *todo.AuditRecord, into *Derived) error {
	seed, err := c.seedOf(r.Chain, r.Seed, r.Commitments)
	if err != nil {
		return err
	}
	e, _ := c.encoding(a.Chain) // one that commits, as seedOf checked
	entity := reflect.ValueOf(&a.Entity).Elem()
	if err := e.checkUncommitted(entity); err != nil {
		return &UnverifiedError{Err: err}
	}
	if want := a.sealHash(e, entity, r.PrevHash, seed, into); !sameHash(want, r.Hash) {
		return &UnverifiedError{Err: fmt.Errorf("its content does not match its hash")}
	}
	return nil
}

// decodeRecord decodes a record as stored and its content with read,
// then makes the record hold its commitments in place of its seed.
func decodeRecord(data []byte, read func(*todo.AuditRecord) (Audited, error)) (todo.AuditRecord, Audited, error) {
	var s storedRecord
	if err := jsondoc.UnmarshalStrict(data, &s); err != nil {
		return s.AuditRecord, Audited{}, fmt.Errorf("it does not decode as an audit record: %w", err)
	}
	r := s.AuditRecord
	r.Erased = r.Commitments.ErasedNames()
	a, err := read(&r)
	if err != nil {
		return r, a, err
	}
	return r, a, set(&r, &a)
}
