package todo

import "time"

// Retention: audit records older than the retention period are purged,
// except those a legal hold covers. What the purge leaves behind for
// verification, the holds and the record of every purge, hold and release
// live in partitions of their own in the audit container.
const (
	// GovernanceKey is the partition of the legal holds and of the
	// governance events (every hold, release and purge run, with its actor
	// and reason): one partition, so that a hold and its event are written
	// in one transactional batch. Hold ids start with HoldIDPrefix, event
	// ids with EventIDPrefix, so that either kind is read by an id range.
	GovernanceKey = "governance"
	HoldIDPrefix  = "hold-"
	EventIDPrefix = "event-"
	// TypeHold and TypeGovernance are the documents' type discriminators.
	TypeHold       = "legalHold"
	TypeGovernance = "governanceEvent"
	// MinAuditRetentionDays is the shortest retention allowed (see
	// docs/auditor.md for why 180 days).
	MinAuditRetentionDays = 180
)

// Hold is a legal hold: while it exists, the purge leaves every audit
// record of the user's todos (UserID) or of one todo (TodoID) alone.
type Hold struct {
	ID        string    `json:"id"`
	EntityKey string    `json:"entityKey"`
	Type      string    `json:"type"`
	UserID    string    `json:"userId,omitempty"`
	TodoID    string    `json:"todoId,omitempty"`
	Reason    string    `json:"reason"`
	CreatedBy string    `json:"createdBy"`
	CreatedAt time.Time `json:"createdAt"`
}

// Covers reports whether h holds the records of todoID owned by owner.
func (h *Hold) Covers(owner, todoID string) bool {
	return (h.UserID != "" && h.UserID == owner) || (h.TodoID != "" && h.TodoID == todoID)
}

// GovernanceEvent records one hold, release, purge run or erasure in the
// audit. Erasures never touch the governance partition, so these events
// are never erased.
type GovernanceEvent struct {
	ID        string    `json:"id"`
	EntityKey string    `json:"entityKey"`
	Type      string    `json:"type"`
	Action    string    `json:"action"` // hold, release, purge or erase
	Actor     string    `json:"actor"`
	Reason    string    `json:"reason"`
	At        string    `json:"at"` // TimeKey, sorts as time
	HoldID    string    `json:"holdId,omitempty"`
	UserID    string    `json:"userId,omitempty"`
	TodoID    string    `json:"todoId,omitempty"`
	Purged    int       `json:"purged,omitempty"`
	Held      int       `json:"held,omitempty"`
	Cutoff    time.Time `json:"cutoff,omitzero"`
	// ErasureID, Erased and FirstEncoding describe an erasure run: its
	// job, the documents that hold erased fields, and those of the first
	// chain encoding it had to leave.
	ErasureID     string         `json:"erasureId,omitempty"`
	Erased        *ErasureCounts `json:"erased,omitempty"`
	FirstEncoding *ErasureCounts `json:"firstEncoding,omitempty"`
}

// PurgeMarker is left in a partition of its own for each todo whose oldest
// versions were purged: verification starts at PurgedBefore, chaining on
// LastHash, the hash of the last version purged, and reports the versions
// before it as purged rather than missing.
type PurgeMarker struct {
	ID           string `json:"id"`
	EntityKey    string `json:"entityKey"`
	Type         string `json:"type"`
	PurgedBefore int64  `json:"purgedBefore"`
	LastHash     string `json:"lastHash"`
}

// TypePurgeMarker is the purge marker's type; PurgeMarkerID its id.
const (
	TypePurgeMarker = "purgeMarker"
	PurgeMarkerID   = "purged"
)

// PurgeMarkerKey is the partition of the purge marker of owner's todo.
func PurgeMarkerKey(owner, todoID string) string { return "retention/" + owner + "/" + todoID }
