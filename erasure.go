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

// ErasePersonal erases the personal fields of the record (see the
// function ErasePersonal), in place of its seed, and lists the erased
// fields in r.Erased.
func (r *AuditRecord) ErasePersonal() (bool, error) {
	a, err := r.Audited()
	if err != nil {
		return false, err
	}
	changed, err := ErasePersonal(&a.Entity, a.Commitments)
	if err != nil || !changed {
		return false, err
	}
	return true, r.set(&a)
}

// ErasePersonal erases the personal fields of the version (see the
// function ErasePersonal), in place of its seed.
func (v *Version) ErasePersonal() (bool, error) {
	if err := v.ExpandSeed(); err != nil {
		return false, err
	}
	return ErasePersonal(&v.Entity, v.Commitments)
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
