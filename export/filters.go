package export

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/todoaudit/todo"
)

// seen is what the records of an export were, for comparing with the
// filters its manifest names, which come after them: the distinct values
// of each filtered property, and the range of their times.
type seen struct {
	values         map[string]map[string]bool // by filter name
	oldest, newest time.Time
}

// add notes one record: owner and category are its entity's (for an
// erasure's entry, the user erased and none).
func (s *seen) add(r *todo.AuditRecord, owner, category string) {
	if s.values == nil {
		s.values = map[string]map[string]bool{}
	}
	for name, v := range map[string]string{"id": r.EntityID, "entityId": r.EntityID, "operation": string(r.Operation),
		"actor": r.Actor, "owner": owner, "category": category} {
		if s.values[name] == nil {
			s.values[name] = map[string]bool{}
		}
		s.values[name][v] = true
	}
	if s.oldest.IsZero() || r.DateCreatedUTC.Before(s.oldest) {
		s.oldest = r.DateCreatedUTC
	}
	if r.DateCreatedUTC.After(s.newest) {
		s.newest = r.DateCreatedUTC
	}
}

// check compares the records with the manifest's filters: each record
// must be one the filters select. A filter this code does not know fails:
// what it would select cannot be checked.
func (s *seen) check(filters map[string]string) error {
	names := make([]string, 0, len(filters))
	for name := range filters {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		want := filters[name]
		switch name {
		case "since", "until":
			t, err := time.Parse(time.RFC3339Nano, want)
			if err != nil {
				return fmt.Errorf("the manifest's filter %s=%q is not a time", name, want)
			}
			if !s.oldest.IsZero() && ((name == "since" && s.oldest.Before(t)) || (name == "until" && s.newest.After(t))) {
				return fmt.Errorf("a record is not of the manifest's filter %s=%s", name, want)
			}
		case "id", "entityId", "operation", "actor", "owner", "category":
			for v := range s.values[name] {
				if v != want && !(name == "category" && v == "") {
					return fmt.Errorf("a record has %s %q, not the manifest's filter %s=%q", name, v, name, want)
				}
			}
		default:
			return fmt.Errorf("the manifest names a filter %q whose records cannot be checked", name)
		}
	}
	return nil
}

// erasedUser is the user an erasure's entry names (its entity is the run's
// status).
func erasedUser(entity []byte) string {
	var e struct {
		UserID string `json:"userId"`
	}
	_ = json.Unmarshal(entity, &e)
	return e.UserID
}

// ownerOf is the owner part of a todo's entity key, todo/<owner>/<id>.
func ownerOf(r *todo.AuditRecord) string {
	rest := strings.TrimPrefix(r.EntityKey, r.EntityType+"/")
	return strings.TrimSuffix(rest, "/"+r.EntityID)
}
