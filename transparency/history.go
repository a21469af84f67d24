package transparency

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"golang.org/x/mod/sumdb/note"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/jsondoc"
)

// historyAnswer is a history page: the records are what is checked, with
// what the page says of the history's end (complete, and the proof of a
// version the log holds after the newest served); the other members of the
// answer are allowed and ignored.
type historyAnswer struct {
	Items       []todo.AuditRecord `json:"items"`
	Complete    *bool              `json:"complete"`
	LoggedAfter *ProofBundle       `json:"loggedAfter"`
}

// VerifyHistoryAnswer checks a history answer (GET .../history: one page,
// or pages concatenated) as served, offline: its records with
// VerifyHistory and the bundles, and what it says of its end. A page that
// says the history is not complete fails, and so does one that ends with
// the proof of a version the log holds after the newest served: the store
// has lost versions that the log commits to. It returns how many versions
// were chained and how many proven included.
func VerifyHistoryAnswer(b []byte, bundles []ProofBundle, v note.Verifier) (int, int, error) {
	var records []todo.AuditRecord
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return 0, 0, fmt.Errorf("not a history answer: %w", err)
		}
		// Member names given twice, or bytes that are not UTF-8, would
		// let what is checked differ from what another reader sees.
		if _, err := jsondoc.Check(raw); err != nil {
			return 0, 0, fmt.Errorf("not strict JSON: %w", err)
		}
		if err := ProblemAnswer(raw); err != nil {
			return 0, 0, err
		}
		var page historyAnswer
		if err := json.Unmarshal(raw, &page); err != nil {
			return 0, 0, fmt.Errorf("not a history answer: %w", err)
		}
		records = append(records, page.Items...)
		if page.LoggedAfter != nil {
			return 0, 0, loggedAfter(page.LoggedAfter, records, v)
		}
		if page.Complete != nil && !*page.Complete {
			return 0, 0, errors.New("the answer says the history is not complete: a version is missing from it")
		}
	}
	if len(records) == 0 {
		return 0, 0, errors.New("the answer holds no version")
	}
	n, err := VerifyHistory(records, bundles, v)
	return len(records), n, err
}

// loggedAfter checks the proof a history answer ends with when the log
// holds a version of the todo after the newest it serves, and says so.
func loggedAfter(p *ProofBundle, records []todo.AuditRecord, v note.Verifier) error {
	c, leaf, err := p.Verify(v)
	if err != nil {
		return fmt.Errorf("the proof of a later version the answer ends with: %w", err)
	}
	if !leaf.Names() {
		return loggedAfterUnnamed(p, leaf, c, records)
	}
	if len(records) == 0 {
		return fmt.Errorf("the log holds version %d of %s, and the history holds none", leaf.Version, leaf.EntityKey())
	}
	last := &records[len(records)-1]
	if leaf.EntityKey() != last.EntityKey || leaf.Version <= last.Version {
		return fmt.Errorf("the answer ends with the proof of version %d of %s, not of a version after the history's", leaf.Version, leaf.EntityKey())
	}
	return fmt.Errorf("the log holds version %d of this todo (leaf %d of %s), and the history ends at version %d: versions were removed from the store",
		leaf.Version, p.Index, c, last.Version)
}

// loggedAfterUnnamed is loggedAfter for a leaf that names no version
// (LeafV2): the proof shows the log holds the leaf, and that it is none of
// the history's versions; that it is a later version of this todo is the
// service's word, which the leaf's hash confirms to whoever kept a copy of
// the history.
func loggedAfterUnnamed(p *ProofBundle, leaf Leaf, c Checkpoint, records []todo.AuditRecord) error {
	for i := range records {
		if records[i].Hash == leaf.Hash {
			return fmt.Errorf("the answer ends with the proof of its own version %d, not of a version after the history's", records[i].Version)
		}
	}
	newest := "holds none"
	if len(records) > 0 {
		newest = fmt.Sprintf("ends at version %d", records[len(records)-1].Version)
	}
	return fmt.Errorf("the log holds a version of this todo after the history's newest (leaf %d of %s, hash %s: a leaf names no version, so match its hash with a copy of the history you kept), and the history %s: versions were removed from the store",
		p.Index, c, leaf.Hash, newest)
}
