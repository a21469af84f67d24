package todo

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"time"
)

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

// GovernanceKey is the partition of the audit container that holds the
// governance documents (see package governance): the legal holds, the
// erasure jobs and the governance events, which record every hold,
// release, purge run and erasure with its actor and reason. One partition,
// so that a document and its event are written in one transactional
// batch. An erasure's activity entry is shown as the erasure's, in this
// partition (AuditRecord.Record).
const GovernanceKey = "governance"

// The erasure job document: one per user, in the governance partition of
// the audit container, so that it and the governance event that closes a
// run are written in one batch and nothing an erasure does erases them.
const (
	TypeErasure     = "erasure"
	ErasureIDPrefix = "erasure-"
	// EntityTypeErasure is the entityType of the activity entries that
	// record an erasure in the admin audit view.
	EntityTypeErasure = "erasure"
)

// The states of an erasure job.
const (
	ErasureRunning = "running"
	ErasureDone    = "done"
)

// ErasureID is the id of user's erasure job: a digest, so that any user
// id fits the store's id limit, and deterministic, so that a user's own
// erasure is found without knowing its id and a second request finds the
// first.
func ErasureID(user string) string {
	sum := sha256.Sum256([]byte(user))
	return ErasureIDPrefix + hex.EncodeToString(sum[:16])
}

// ErasureCounts counts documents by kind.
type ErasureCounts struct {
	Todos       int `json:"todos"`
	Versions    int `json:"versions"`
	Records     int `json:"records"`
	Activity    int `json:"activity"`
	DeadLetters int `json:"deadLetters"`
	Idempotency int `json:"idempotency"`
}

// Erasure is an erasure job and its status: the user whose personal
// content is erased, who asked and why, how far it got and what it
// erased. The job is durable: a step saves its progress (Phase and
// Continuation) with the store's conditional write, so a crash loses at
// most one step, which the next run repeats (erasing is idempotent).
type Erasure struct {
	ID          string    `json:"id"`
	EntityKey   string    `json:"entityKey,omitempty"`
	Type        string    `json:"type,omitempty"`
	UserID      string    `json:"userId"`
	Reason      string    `json:"reason"`
	RequestedBy string    `json:"requestedBy"`
	RequestedAt time.Time `json:"requestedAt"`
	// Run counts the runs of the user's erasure, 1 for the first: a
	// request after one finished erases again what was written since.
	Run   int    `json:"run"`
	State string `json:"state"`
	// Phase is the step the job is at: todos, audit, activity,
	// deadLetters, scrub, then done.
	Phase string `json:"phase"`
	// HeldBy names the legal hold that pauses a running job.
	HeldBy string `json:"heldBy,omitempty"`
	// Erased counts the documents of the user that hold erased fields
	// (whether this run or an earlier one erased them); dead letters,
	// whose copy of the document is removed, as this run removed them.
	Erased ErasureCounts `json:"erased"`
	// FirstEncoding counts the documents left as they are: versions of
	// the first chain encoding commit to no field separately, so their
	// values cannot be removed without breaking their chain.
	FirstEncoding ErasureCounts `json:"firstEncoding"`
	UpdatedAt     time.Time     `json:"updatedAt"`
	FinishedAt    *time.Time    `json:"finishedAt,omitempty"`
	// Continuation resumes the phase's query: stored, never shown.
	Continuation string `json:"continuation,omitempty"`
}

// Status is e as the API shows it: without its storage properties.
func (e Erasure) Status() Erasure {
	e.EntityKey, e.Type, e.Continuation = "", "", ""
	return e
}

// OwnerStatus is e as the user it erases sees it: a legal hold that makes
// it wait is not named to the user the hold covers.
func (e Erasure) OwnerStatus() Erasure {
	e = e.Status()
	e.HeldBy = ""
	return e
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

// ErasePersonalJSON removes the personal fields of a todo encoded as a
// JSON object, keeping every other property as it is (a todo document
// with its partition key properties, the result an idempotency record
// keeps): a field the todo omits when empty is removed, the title becomes
// empty. It reports whether anything changed.
func ErasePersonalJSON(doc json.RawMessage) (json.RawMessage, bool, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(doc, &m); err != nil {
		return doc, false, err
	}
	changed := false
	for _, name := range PersonalFields {
		p, _ := PropertyNamed(name)
		old, ok := m[name]
		if !ok {
			continue
		}
		if p.OmitEmpty {
			delete(m, name)
			changed = true
			continue
		}
		zero, _ := json.Marshal(reflect.Zero(p.Type).Interface())
		if string(old) != string(zero) {
			m[name] = zero
			changed = true
		}
	}
	if !changed {
		return doc, false, nil
	}
	out, err := json.Marshal(m)
	return out, true, err
}
