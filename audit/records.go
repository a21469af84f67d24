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

	"github.com/todoaudit/todo"
)

// Records turns one change-feed batch into audit records. Version documents
// (the outbox) give one record each; a todo document gives the record of the
// version it stands for, unless the batch holds that version's document too,
// so a todo written by another tool is still audited. Record ids are
// deterministic in entity and version, and both sources build byte-equal
// records, so redelivered, reordered or overlapping batches never duplicate
// or disagree. Other document types (sequence documents) are skipped. A
// malformed todo or version document fails the whole batch.
func Records(docs []json.RawMessage) ([]todo.AuditRecord, error) {
	var fromVersions, fromTodos []todo.Version
	for i, raw := range docs {
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		switch head.Type {
		case todo.TypeVersion:
			var v todo.Version
			if err := json.Unmarshal(raw, &v); err != nil {
				return nil, fmt.Errorf("version document %d: %w", i, err)
			}
			if err := checkVersion(v); err != nil {
				return nil, fmt.Errorf("version document %d: %w", i, err)
			}
			fromVersions = append(fromVersions, v)
		case todo.TypeTodo:
			var t todo.Todo
			if err := json.Unmarshal(raw, &t); err != nil {
				return nil, fmt.Errorf("todo document %d: %w", i, err)
			}
			v := todo.VersionOf(t)
			if err := checkVersion(v); err != nil {
				return nil, fmt.Errorf("todo document %d: %w", i, err)
			}
			fromTodos = append(fromTodos, v)
		}
	}
	seen := map[string]bool{}
	var out []todo.AuditRecord
	for _, v := range append(fromVersions, fromTodos...) {
		rec, err := todo.NewAuditRecord(v)
		if err != nil {
			return nil, err
		}
		key := rec.EntityKey + "\x00" + rec.ID
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, rec)
	}
	return out, nil
}

func checkVersion(v todo.Version) error {
	switch {
	case todo.ValidateID(v.TodoID) != nil:
		return fmt.Errorf("invalid todo id %q", v.TodoID)
	case todo.ValidateUserID(v.UserID) != nil:
		return fmt.Errorf("invalid user id %q", v.UserID)
	case v.Version < 1:
		return fmt.Errorf("invalid version %d", v.Version)
	case !v.Operation.Valid():
		return fmt.Errorf("invalid operation %q", v.Operation)
	}
	return nil
}
