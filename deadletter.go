package todo

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/todoaudit/todo/internal/timetext"
)

// TypeDeadLetter is the type of dead-letter records in the audit container.
const TypeDeadLetter = "deadLetter"

// DeadLetterKey is the audit partition of every dead letter. Audit entity
// keys always contain a '/', so it never meets one; dead letters are rare,
// and one partition lets them be listed newest first with one query.
const DeadLetterKey = "deadletters"

// MaxDeadLetterDocumentBytes bounds the copy of a bad document a dead letter
// keeps, so that the dead letter itself always fits one item.
const MaxDeadLetterDocumentBytes = 256 * 1024

// DeadLetterTimeLayout is a fixed-width RFC 3339 UTC layout, so that dead
// letters sort by time as strings.
const DeadLetterTimeLayout = timetext.KeyLayout

// DeadLetter is a change-feed document the audit could not turn into a
// record. It is kept in the audit container instead of failing its batch,
// so one bad document never holds the others hostage and none goes
// unnoticed.
type DeadLetter struct {
	ID        string `json:"id"`
	EntityKey string `json:"entityKey"`
	Type      string `json:"type"`
	// Source is the container the document came from.
	Source string `json:"source"`
	// Reason says why the document could not be audited.
	Reason string `json:"reason"`
	// At is when it was dead-lettered, in DeadLetterTimeLayout.
	At string `json:"at"`
	// Document is the document exactly as received, unless it is larger
	// than MaxDeadLetterDocumentBytes; Size and SHA256 describe it always.
	Document json.RawMessage `json:"document,omitempty"`
	Size     int             `json:"size"`
	SHA256   string          `json:"sha256"`
}

// NewDeadLetter returns the dead letter of raw, a document from the source
// container. Its id is deterministic in source and document, so a
// redelivered bad document replaces its dead letter instead of adding one.
func NewDeadLetter(source string, raw json.RawMessage, reason string, at time.Time) DeadLetter {
	sum := sha256.Sum256(raw)
	id := sha256.Sum256(append([]byte(source+"\x00"), raw...))
	d := DeadLetter{
		ID:        "dl-" + hex.EncodeToString(id[:16]),
		EntityKey: DeadLetterKey,
		Type:      TypeDeadLetter,
		Source:    source,
		Reason:    reason,
		At:        TimeKey(at),
		Size:      len(raw),
		SHA256:    hex.EncodeToString(sum[:]),
	}
	if len(raw) <= MaxDeadLetterDocumentBytes && json.Valid(raw) {
		d.Document = raw
	} else {
		d.Reason += fmt.Sprintf(" (the %d-byte document is not kept)", len(raw))
	}
	return d
}
