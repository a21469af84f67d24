package todo

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"
)

// Document types stored in the polymorphic todo container, told apart by
// their "type" discriminator.
const (
	TypeTodo     = "todo"
	TypeVersion  = "todoVersion"
	TypeSequence = "sequence"
	// EntityTypeTodo is the entityType of audit records of todos.
	EntityTypeTodo = "todo"
)

// Operation names the change that produced a version.
type Operation string

// The operations recorded in versions and audit records.
const (
	OpCreate   Operation = "create"
	OpUpdate   Operation = "update"
	OpDelete   Operation = "delete"
	OpRollback Operation = "rollback"
	OpMove     Operation = "move"
)

// Operations are the operations a version records, in the order the API
// lists them.
var Operations = []Operation{OpCreate, OpUpdate, OpDelete, OpRollback, OpMove}

// Valid reports whether op is one of Operations.
func (op Operation) Valid() bool { return slices.Contains(Operations, op) }

// Todo is one user's todo item as stored in the todo container. UserID always
// comes from authentication, never from the caller's body or the id.
//
// Its struct tags are the one definition of the todo's properties: their
// JSON names and order, and which of them the API shows (see fields.go). A
// field tagged todo:"stored" is kept in the store but never shown by the
// API; one tagged todo:"link" is a link of the hash chain, kept on the todo
// document only; one tagged todo:"stamp" is a time the service stamps,
// written so that its text sorts as the time (Property.Stamp). Every other
// field is in the API view. The chain commits to the fields its encoding
// lists (see package hashchain), and the newest encoding must list every
// field but the links: a field added here needs a new encoding that lists
// it, which a test asks for (docs/chain.md, "The rule for fields added
// later").
type Todo struct {
	ID     string `json:"id"`
	Type   string `json:"type" todo:"stored"`
	UserID string `json:"userId"`
	Fields
	Version   int64     `json:"version"`
	CreatedAt time.Time `json:"createdAt" todo:"stamp"`
	UpdatedAt time.Time `json:"updatedAt" todo:"stamp"`
	// LastOperation and UpdatedBy describe the change that produced this
	// version, so that the version document and audit record of a todo
	// document say who changed it and how.
	LastOperation Operation `json:"lastOperation,omitempty" todo:"stored"`
	UpdatedBy     string    `json:"updatedBy,omitempty" todo:"stored"`
	// MovedFrom is the id this todo was moved from, on the first version
	// after a move.
	MovedFrom string `json:"movedFrom,omitempty"`
	// MovingTo marks a todo whose move to another partition has started: it
	// is hidden from then on, a retried move completes it, and its last
	// version in history says where it went.
	MovingTo string `json:"movingTo,omitempty" todo:"stored"`
	// PartitionKey is the synthetic partition key property, set only under
	// the synthetic scheme.
	PartitionKey string `json:"partitionKey,omitempty" todo:"stored"`
	// Chain, PrevHash and Hash are the hash chain links of this version
	// (see hashchain.Seal): the encoding its hash uses (0 for the first) and the
	// hashes, kept on the todo document so that the next write chains on
	// without another read. Snapshots in versions and audit records carry
	// them beside the entity, not in it.
	Chain    int    `json:"chain,omitempty" todo:"link"`
	PrevHash string `json:"prevHash,omitempty" todo:"link"`
	Hash     string `json:"hash,omitempty" todo:"link"`
}

// Fields is the user-editable content of a todo: what a create or update
// request carries and what a rollback restores. Todo embeds it, so a field
// added here is a property of the todo, of its API view and of its input.
type Fields struct {
	Category    string     `json:"category"`
	Title       string     `json:"title"`
	Notes       string     `json:"notes,omitempty"`
	DueDate     *time.Time `json:"dueDate,omitempty"`
	Tags        []string   `json:"tags,omitempty"`
	IsCompleted bool       `json:"isCompleted"`
}

// DefaultVersionTTL is how long version documents are kept unless told
// otherwise: the window in which a lost audit record can be refilled.
const DefaultVersionTTL = 30 * 24 * time.Hour

// Version is the immutable copy of one version of a todo, written in the same
// transactional batch as the change itself (a transactional outbox). It lives
// in the todo's logical partition, so it carries the same partition key
// properties, and expires after the retention period.
type Version struct {
	ID           string    `json:"id"`
	Type         string    `json:"type"`
	TodoID       string    `json:"todoId"`
	UserID       string    `json:"userId"`
	Category     string    `json:"category"`
	PartitionKey string    `json:"partitionKey,omitempty"`
	Version      int64     `json:"version"`
	Operation    Operation `json:"operation"`
	Entity       Todo      `json:"entity"`
	Actor        string    `json:"actor"`
	At           time.Time `json:"at"`
	PrevHash     string    `json:"prevHash"`
	Hash         string    `json:"hash"`
	// Chain is the encoding of Hash (0 for the first); in the second,
	// Seed or Commitments, never both, commit to its fields: the seed
	// their salts follow from while none is erased, or each field's salt
	// and digest.
	Chain       int         `json:"chain,omitempty"`
	Seed        string      `json:"seed,omitempty"`
	Commitments Commitments `json:"commitments,omitempty"`
	TTL         int         `json:"ttl,omitempty"`
	// TraceParent is the W3C trace context of the request that wrote this
	// version, so the audit of the change can link back to its trace. It
	// is not part of the audited content.
	TraceParent string `json:"traceparent,omitempty"`
}

// NewVersion returns the version document of t as hashchain.Seal left
// it, with the seed Seal returned and the given time to live in seconds
// (0 keeps the container default). Its operation, actor and time are t's own
// LastOperation, UpdatedBy and UpdatedAt.
func NewVersion(t Todo, seed string, ttl int) Version {
	v := VersionOf(t)
	v.Seed, v.TTL = seed, ttl
	return v
}

// VersionOf returns the version a todo document stands for. Its operation
// and actor come from the document's own change description; a document
// written by another tool without one counts as a create at version 1 and
// an update after. Its hash links are the document's, as hashchain.Seal left them;
// the entity snapshot carries them beside it, not in it. A todo document
// holds no commitments: the version of one in the second chain encoding
// is complete only in its version document.
func VersionOf(t Todo) Version {
	op := t.LastOperation
	if !op.Valid() {
		op = OpUpdate
		if t.Version <= 1 {
			op = OpCreate
		}
	}
	return Version{
		ID:           VersionID(t.ID, t.Version),
		Type:         TypeVersion,
		TodoID:       t.ID,
		UserID:       t.UserID,
		Category:     t.Category,
		PartitionKey: t.PartitionKey,
		Version:      t.Version,
		Operation:    op,
		Entity:       t.Snapshot(),
		Actor:        t.UpdatedBy,
		At:           t.UpdatedAt,
		PrevHash:     t.PrevHash,
		Hash:         t.Hash,
		Chain:        t.Chain,
	}
}

// AuditRecord is one version of one entity in the audit container. Its
// partition key is EntityKey, the entity's full identity including the owner,
// so one user's history lookup can never read another user's records.
type AuditRecord struct {
	ID             string          `json:"id"`
	EntityKey      string          `json:"entityKey"`
	EntityID       string          `json:"entityId"`
	EntityType     string          `json:"entityType"`
	Version        int64           `json:"version"`
	Operation      Operation       `json:"operation"`
	Entity         json.RawMessage `json:"entity"`
	DateCreatedUTC time.Time       `json:"dateCreatedUtc"`
	Actor          string          `json:"actor"`
	// PrevHash is the Hash of the previous version ("" for an id's first
	// version, the old id's last Hash for the first version after a move);
	// Hash covers PrevHash and this record's audited content.
	PrevHash string `json:"prevHash"`
	Hash     string `json:"hash"`
	// Chain is the encoding of Hash (0 for the first); Seed or
	// Commitments, in the second, commit to the fields of the entity (see
	// Version). A record is served with its commitments (see hashchain.ExpandRecord).
	Chain       int         `json:"chain,omitempty"`
	Seed        string      `json:"seed,omitempty"`
	Commitments Commitments `json:"commitments,omitempty"`
	// Erased lists the fields whose values an erasure removed, as their
	// commitments say (see Commitments.ErasedNames): what history, activity
	// and exports show as erased.
	Erased []string `json:"erased,omitempty"`
	// Owner, Category and At are set on activity entries only (see
	// ActivityEntries), for the queries by owner, category and time: At is
	// DateCreatedUTC in a fixed width (TimeKey), which sorts as the time
	// does. The owner of an audit record is in its EntityKey.
	Owner    string `json:"owner,omitempty"`
	Category string `json:"category,omitempty"`
	At       string `json:"at,omitempty"`
}

// EntityKey is the audit partition key of one user's todo. Neither part may
// contain '/', so the key is unambiguous.
func EntityKey(userID, todoID string) string {
	return EntityTypeTodo + "/" + userID + "/" + todoID
}

// AuditID is the deterministic id of the audit record of one version, so a
// redelivered change never duplicates history.
func AuditID(todoID string, version int64) string {
	return VersionID(todoID, version)
}

// VersionID is the deterministic id of a version document.
func VersionID(todoID string, version int64) string {
	return todoID + ":v" + strconv.FormatInt(version, 10)
}

// NewAuditRecord builds the audit record of version v. The entity snapshot
// is encoded from the typed todo, so records derived from one version
// document are byte-for-byte equal however often it is delivered.
func NewAuditRecord(v Version) (AuditRecord, error) {
	entity, err := MarshalJSON(v.Entity)
	if err != nil {
		return AuditRecord{}, err
	}
	return AuditRecord{
		ID:             AuditID(v.TodoID, v.Version),
		EntityKey:      EntityKey(v.UserID, v.TodoID),
		EntityID:       v.TodoID,
		EntityType:     EntityTypeTodo,
		Version:        v.Version,
		Operation:      v.Operation,
		Entity:         entity,
		DateCreatedUTC: v.At.UTC(),
		Actor:          v.Actor,
		PrevHash:       v.PrevHash,
		Hash:           v.Hash,
		Chain:          v.Chain,
		Seed:           v.Seed,
		Commitments:    v.Commitments,
		Erased:         v.Commitments.ErasedNames(),
	}, nil
}
