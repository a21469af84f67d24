// Package audit is the audit history's records: built from the todo
// container's change-feed documents, and written to the audit container
// one transactional batch per entity, as the output binding writes them.
// The function that builds them is audit/trigger, the host's stand-in that
// feeds it standalone is audit/pump, and audit/reconcile refills what a
// lost batch left out.
package audit

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/todoaudit/todo"
)

// Outcome is what one change-feed batch becomes.
type Outcome struct {
	Records []todo.AuditRecord
	// DeadLetters are the documents that could not be audited, one each.
	DeadLetters []todo.DeadLetter
}

// Records turns one change-feed batch from the source container into audit
// records, each followed by its activity entries (todo.ActivityEntries),
// which the output writes beside it. Version documents (the outbox) give one record each; a todo
// document gives the record of the version it stands for, unless the batch
// holds that version's document too, so a todo written by another tool is
// still audited. Record ids are deterministic in entity and version, and
// both sources build byte-equal records, so redelivered, reordered or
// overlapping batches never duplicate or disagree. Other document types
// (sequence documents) are skipped. A malformed todo or version document
// becomes a dead letter and the rest of the batch is audited as usual.
func Records(docs []json.RawMessage, source string, now time.Time) Outcome {
	var out Outcome
	type candidate struct {
		v   todo.Version
		raw json.RawMessage
	}
	var fromVersions, fromTodos []candidate
	for _, raw := range docs {
		v, audited, err := versionOf(raw)
		switch {
		case err != nil:
			out.DeadLetters = append(out.DeadLetters, todo.NewDeadLetter(source, raw, err.Error(), now))
		case audited == todo.TypeVersion:
			fromVersions = append(fromVersions, candidate{v, raw})
		case audited == todo.TypeTodo:
			fromTodos = append(fromTodos, candidate{v, raw})
		}
	}
	seen := map[string]bool{}
	for _, c := range append(fromVersions, fromTodos...) {
		rec, err := todo.NewAuditRecord(c.v)
		if err != nil {
			out.DeadLetters = append(out.DeadLetters, todo.NewDeadLetter(source, c.raw, err.Error(), now))
			continue
		}
		key := rec.EntityKey + "\x00" + rec.ID
		if seen[key] {
			continue
		}
		seen[key] = true
		out.Records = append(out.Records, rec)
		out.Records = append(out.Records, todo.ActivityEntries(rec, c.v.Category)...)
	}
	return out
}

// versionOf decodes one change-feed document into the version it records
// and the document type it came from; typ is "" for documents the audit
// does not cover.
func versionOf(raw json.RawMessage) (v todo.Version, typ string, err error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return v, "", fmt.Errorf("not a JSON object: %w", err)
	}
	switch head.Type {
	case todo.TypeVersion:
		if err := json.Unmarshal(raw, &v); err != nil {
			return v, "", fmt.Errorf("version document does not decode: %w", err)
		}
	case todo.TypeTodo:
		var t todo.Todo
		if err := json.Unmarshal(raw, &t); err != nil {
			return v, "", fmt.Errorf("todo document does not decode: %w", err)
		}
		v = todo.VersionOf(t)
	default:
		return v, "", nil
	}
	if err := CheckVersion(v); err != nil {
		return v, "", fmt.Errorf("%s document: %w", head.Type, err)
	}
	return v, head.Type, nil
}

// CheckVersion reports why a version cannot be audited, if it cannot.
func CheckVersion(v todo.Version) error {
	switch {
	case todo.ValidateID(v.TodoID) != nil:
		return fmt.Errorf("invalid todo id %q", v.TodoID)
	case todo.ValidateUserID(v.UserID) != nil:
		return fmt.Errorf("invalid user id %q", v.UserID)
	case v.Version < 1:
		return fmt.Errorf("invalid version %d", v.Version)
	case !v.Operation.Valid():
		return fmt.Errorf("invalid operation %q", v.Operation)
	case v.Entity.ID != v.TodoID || v.Entity.UserID != v.UserID || v.Entity.Version != v.Version:
		return fmt.Errorf("its entity is not version %d of todo %q of %q", v.Version, v.TodoID, v.UserID)
	}
	return nil
}
