// Package audit is the audit history's records: built from the todo
// container's change-feed documents and written to the audit container.
// The function that builds them is audit/trigger (under the Functions host
// its output binding upserts each record); standalone, audit/pump feeds it
// in-process and writes the records itself; audit/reconcile refills what a
// lost batch left out.
package audit

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/internal/jsondoc"
)

// Outcome is what one change-feed batch becomes.
type Outcome struct {
	Records []todo.AuditRecord
	// DeadLetters are the documents that could not be audited, one each.
	DeadLetters []todo.DeadLetter
	// Recorded are the version documents, as indexes into the batch,
	// whose records Records holds: once those are written the outbox has
	// done its work for them. A move's are not among them: its mark is
	// what finishes an interrupted move, and the moved todo's first
	// version is what keeps a retried move from creating it twice.
	Recorded []int
}

// Records turns one change-feed batch from the source container into audit
// records, each followed by its activity entries (todo.ActivityEntries),
// which the output writes beside it. Version documents (the outbox) give
// one record each. A todo
// document of the first chain encoding (written before versions said which
// they use, or by another tool) gives the record of the version it stands
// for, unless the batch holds that version's document too; one of the
// second is audited through its version document only, which holds the
// seed of its commitments. Record ids are deterministic in entity and
// version, and every source of a record builds it byte-equal, so
// redelivered, reordered or overlapping batches never duplicate or
// disagree. Other document types
// (sequence documents) are skipped. A malformed todo or version document
// becomes a dead letter and the rest of the batch is audited as usual.
//
// Each document is decoded once at most: its type, id and version are
// skimmed first, so a todo document whose version document is in the
// batch, and every document of another type, is never decoded.
func Records(docs []json.RawMessage, source string, now time.Time) Outcome {
	var out Outcome
	type candidate struct {
		v   todo.Version
		raw json.RawMessage
		doc int // its index in docs when it is a version document, else -1
	}
	heads := make([]head, len(docs))
	failed := make([]error, len(docs)) // why a document cannot be audited
	versions := map[string]bool{}      // the keys of the version documents that decode
	var candidates []candidate
	for i, raw := range docs {
		h, err := headOf(raw)
		heads[i] = h
		switch {
		case err != nil:
			failed[i] = err
		case h.typ == todo.TypeVersion:
			v, err := decodeVersion(raw)
			if err != nil {
				failed[i] = err
				continue
			}
			versions[versionKey(v.UserID, v.TodoID, v.Version)] = true
			candidates = append(candidates, candidate{v, raw, i})
		}
	}
	for i, raw := range docs {
		h := heads[i]
		if h.typ != todo.TypeTodo || (h.ok && versions[versionKey(h.userID, h.id, h.version)]) {
			continue
		}
		v, err := decodeTodo(raw)
		if err != nil {
			failed[i] = err
			continue
		}
		if v.Chain >= hashchain.V2 {
			continue // audited through its version document, which holds the seed
		}
		candidates = append(candidates, candidate{v, raw, -1})
	}
	for i, err := range failed {
		if err != nil {
			out.DeadLetters = append(out.DeadLetters, todo.NewDeadLetter(source, docs[i], err.Error(), now))
		}
	}
	seen := map[string]bool{}
	for _, c := range candidates {
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
		if c.doc >= 0 && c.v.Operation != todo.OpMove {
			out.Recorded = append(out.Recorded, c.doc)
		}
		out.Records = append(out.Records, rec)
		out.Records = append(out.Records, todo.ActivityEntries(rec, c.v.Category)...)
	}
	return out
}

// head is what Records skims of a document before it decodes any.
type head struct {
	typ        string
	id, userID string // of a todo document
	version    int64
	ok         bool // id, userID and version were read
}

// headOf skims a document's type and, for a todo document, its id, user
// and version. It stops at the last member it needs, which a document of
// this code's writing has near its start (after the store's _etag and _ts):
// the rest is skimmed again only by the decoder of a document that is
// decoded, and the store wrote every document as valid JSON.
func headOf(raw json.RawMessage) (head, error) {
	var h head
	var typ, id, user, version []byte
	if err := jsondoc.Each(raw, func(name, value []byte) bool {
		switch string(name) {
		case "type":
			typ = value
		case "id":
			id = value
		case "userId":
			user = value
		case "version":
			version = value
		}
		// A todo document needs the four, any other its type only.
		return typ == nil || (string(typ) == todoType && (id == nil || user == nil || version == nil))
	}); err != nil {
		return h, fmt.Errorf("not a JSON object: %w", err)
	}
	if typ != nil {
		if t, err := jsondoc.String(typ); err == nil {
			h.typ = t
		}
	}
	if h.typ == todo.TypeTodo {
		n, err := strconv.ParseInt(string(version), 10, 64)
		h.version = n
		var idErr, userErr error
		h.id, idErr = jsondoc.String(id)
		h.userID, userErr = jsondoc.String(user)
		h.ok = err == nil && idErr == nil && userErr == nil
	}
	return h, nil
}

// todoType is todo.TypeTodo as the JSON string a document holds.
var todoType = strconv.Quote(todo.TypeTodo)

func versionKey(user, id string, version int64) string {
	return user + "\x00" + id + "\x00" + strconv.FormatInt(version, 10)
}

// versionDocs and todoDocs decode the documents the audit reads: a
// version document each write, and each todo document whose version
// document is not in the same batch (a write's whose version document was
// audited with it, see pump.Relay).
var (
	versionDocs = jsondoc.DecoderFor[todo.Version]()
	todoDocs    = jsondoc.DecoderFor[todo.Todo]()
)

func decodeVersion(raw json.RawMessage) (todo.Version, error) {
	var v todo.Version
	if err := versionDocs.Unmarshal(raw, &v); err != nil {
		return v, fmt.Errorf("version document does not decode: %w", err)
	}
	if err := CheckVersion(v); err != nil {
		return v, fmt.Errorf("%s document: %w", todo.TypeVersion, err)
	}
	return v, nil
}

func decodeTodo(raw json.RawMessage) (todo.Version, error) {
	var t todo.Todo
	if err := todoDocs.Unmarshal(raw, &t); err != nil {
		return todo.Version{}, fmt.Errorf("todo document does not decode: %w", err)
	}
	v := todo.VersionOf(t)
	if err := CheckVersion(v); err != nil {
		return v, fmt.Errorf("%s document: %w", todo.TypeTodo, err)
	}
	return v, nil
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
