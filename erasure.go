package todo

import "reflect"

// PersonalFields are the fields of a todo that hold its owner's own free
// text: what an erasure removes. The category is free text too, but it is
// part of ids and partition keys and cannot be removed (docs/auditor.md
// says what the product does about it); every other field is a date, a
// flag, an id or bookkeeping. A reflective test fails when a string field
// is added to Fields without being listed here or named as not personal.
var PersonalFields = []string{"title", "notes", "tags"}

// OpErase is the operation of the activity entries that record an
// erasure. It is never the operation of a version.
const OpErase Operation = "erase"

// EntityTypeErasure is the entityType of the activity entries that record
// an erasure in the admin audit view.
const EntityTypeErasure = "erasure"

// GovernanceKey is the partition of the audit container that holds the
// governance documents (see package governance): the legal holds, the
// erasure jobs and the governance events, which record every hold,
// release, purge run and erasure with its actor and reason. One partition,
// so that a document and its event are written in one transactional
// batch. An erasure's activity entry is shown as the erasure's, in this
// partition (AuditRecord.Record).
const GovernanceKey = "governance"

// Erase removes the value and the salt of the user-editable field name
// from a snapshot in an encoding that commits to each field and from its
// commitments, and marks the commitment erased: the digest stays, so the
// version's hash and every link after it still verify, and without the
// salt the value cannot be found again from the digest. The entity then
// holds the field's zero value.
func Erase(entity *Todo, c Commitments, name string) error {
	p, ok := PropertyNamed(name)
	switch {
	case !ok || !p.Editable:
		return Errorf(Invalid, "only a user-editable field of a todo can be erased, not %q", name)
	case c == nil:
		return Errorf(Conflict, "a version of the first chain encoding commits to no field separately: it cannot be erased")
	}
	com, ok := c[name]
	if !ok {
		return Errorf(Conflict, "field %q is not committed", name)
	}
	reflect.ValueOf(entity).Elem().FieldByIndex(p.Index).SetZero()
	c[name] = Commitment{Digest: com.Digest, Erased: true}
	return nil
}

// ErasePersonal erases every personal field of a snapshot in the second
// chain encoding that holds a value (see Erase); an empty field keeps its
// commitment, which reveals only that it was empty. It reports whether it
// erased anything: false for a snapshot erased before.
func ErasePersonal(entity *Todo, c Commitments) (bool, error) {
	v := reflect.ValueOf(entity).Elem()
	changed := false
	for _, name := range PersonalFields {
		p, _ := PropertyNamed(name)
		if c[name].Erased || v.FieldByIndex(p.Index).IsZero() {
			continue
		}
		if err := Erase(entity, c, name); err != nil {
			return changed, err
		}
		changed = true
	}
	return changed, nil
}

// PersonalValues reports whether a personal field of a snapshot holds a
// value: one an erasure would erase.
func PersonalValues(entity *Todo) bool {
	v := reflect.ValueOf(entity).Elem()
	for _, name := range PersonalFields {
		p, _ := PropertyNamed(name)
		if !v.FieldByIndex(p.Index).IsZero() {
			return true
		}
	}
	return false
}

// ErasedNames lists the erased fields of c in the order of the todo's
// properties; nil when none is.
func (c Commitments) ErasedNames() []string {
	var out []string
	for _, p := range Properties() {
		if c[p.Name].Erased {
			out = append(out, p.Name)
		}
	}
	return out
}
