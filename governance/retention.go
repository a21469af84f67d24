package governance

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// MinRetentionDays is the shortest retention allowed (see docs/auditor.md
// for why 180 days).
const MinRetentionDays = 180

// Purger purges the audit records of one audit container older than the
// retention period, in bounded steps run after each reconcile pass: never
// a record a legal hold covers, always a todo's oldest versions first,
// leaving a purge marker from which verification continues the chain, and
// a governance event for every run that purged or spared anything.
type Purger struct {
	Audit  store.Container
	Leases store.Container
	// Retention is how long records are kept; at least MinRetentionDays
	// days.
	Retention time.Duration
	// PageSize bounds one step: the expired records it reads, whose todos
	// it purges. DefaultPurgePageSize when zero.
	PageSize int
	// Now is the clock, time.Now when nil.
	Now func() time.Time
}

// DefaultPurgePageSize is the expired records one step reads.
const DefaultPurgePageSize = 100

// PurgeActor is the actor of purge runs in the governance events.
const PurgeActor = "retention"

// PurgeResult says what one step did.
type PurgeResult struct {
	Purged  int // audit records removed
	Entries int // activity entries removed
	Held    int // todos spared by a hold
}

// String is a step's result as one line for the logs.
func (r PurgeResult) String() string {
	return fmt.Sprintf("retention: %d audit records and %d activity entries purged, %d todos spared by legal holds", r.Purged, r.Entries, r.Held)
}

func (p *Purger) checkpointID() string { return "retention-purge-" + p.Audit.Spec().Name }

// Step reads one page of expired audit records from where the previous
// step stopped and purges the expired versions of their todos, unless a
// hold covers them. When the pages run out the next step starts again from
// the beginning. It is background work: its store calls go at low
// priority.
func (p *Purger) Step(ctx context.Context) (PurgeResult, error) {
	ctx = store.WithLowPriority(ctx)
	var res PurgeResult
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	cutoff := now().UTC().Add(-p.Retention)
	holds, err := Holds(ctx, p.Audit)
	if err != nil {
		return res, err
	}
	cont, err := store.LoadCheckpoint(ctx, p.Leases, p.checkpointID())
	if err != nil {
		return res, err
	}
	size := p.PageSize
	if size <= 0 {
		size = DefaultPurgePageSize
	}
	page, err := p.Audit.Query(ctx, store.Query{
		Filters: []store.Filter{{Field: "version", Op: store.Ge, Value: int64(1)}, {Field: "owner", Op: store.NotDefined},
			{Field: "dateCreatedUtc", Op: store.Lt, Value: cutoff.Format(time.RFC3339Nano)}},
		PageSize:     size,
		Continuation: cont,
	})
	if err != nil {
		return res, err
	}
	done := map[string]bool{}
	for _, it := range page.Items {
		var r todo.AuditRecord
		if json.Unmarshal(it.Body, &r) != nil || r.EntityType != todo.EntityTypeTodo || todo.IsActivityKey(r.EntityKey) || done[r.EntityKey] {
			continue
		}
		done[r.EntityKey] = true
		owner := r.OwnerOf()
		if held(holds, owner, r.EntityID) {
			res.Held++
			continue
		}
		n, e, err := p.purge(ctx, owner, r.EntityID, cutoff)
		res.Purged, res.Entries = res.Purged+n, res.Entries+e
		if err != nil {
			return res, err
		}
	}
	if err := store.SaveCheckpoint(ctx, p.Leases, p.checkpointID(), page.Continuation); err != nil {
		return res, err
	}
	if res.Purged > 0 || res.Held > 0 {
		ev := Event{Action: "purge", Actor: PurgeActor, Purged: res.Purged, Held: res.Held, Cutoff: cutoff,
			Reason: fmt.Sprintf("retention of %d days: records written before %s", int(p.Retention/(24*time.Hour)), cutoff.Format(time.RFC3339))}
		if err := WriteEvent(ctx, p.Audit, ev, now()); err != nil {
			return res, err
		}
	}
	return res, nil
}

func held(holds []Hold, owner, todoID string) bool {
	for i := range holds {
		if holds[i].Covers(owner, todoID) {
			return true
		}
	}
	return false
}

// purge removes the versions of one todo written before cutoff, oldest
// first and only as an unbroken run from the first version kept: the
// purge marker goes first, so that a purge stopped half way verifies as
// purged up to it, and the records and their activity entries after.
func (p *Purger) purge(ctx context.Context, owner, todoID string, cutoff time.Time) (records, entries int, err error) {
	key := todo.EntityKey(owner, todoID)
	var expired []todo.AuditRecord
	q := store.Query{PartitionKey: store.PartitionKey{key}, OrderBy: []store.Order{{Field: "version"}}, PageSize: store.MaxPageSize}
	for more := true; more; {
		page, err := p.Audit.Query(ctx, q)
		if err != nil {
			return 0, 0, err
		}
		for _, it := range page.Items {
			var r todo.AuditRecord
			if json.Unmarshal(it.Body, &r) != nil || !r.DateCreatedUTC.Before(cutoff) {
				more = false
				break
			}
			expired = append(expired, r)
		}
		q.Continuation = page.Continuation
		more = more && page.Continuation != ""
	}
	if len(expired) == 0 {
		return 0, 0, nil
	}
	last := expired[len(expired)-1]
	marker, _ := json.Marshal(PurgeMarker{ID: PurgeMarkerID, EntityKey: PurgeMarkerKey(owner, todoID),
		Type: TypePurgeMarker, PurgedBefore: last.Version + 1, LastHash: last.Hash})
	if _, err := p.Audit.Upsert(ctx, store.PartitionKey{PurgeMarkerKey(owner, todoID)}, marker, nil); err != nil {
		return 0, 0, err
	}
	for _, r := range expired {
		for _, e := range todo.ActivityEntries(r, "") {
			if err := gone(p.Audit.Delete(ctx, store.PartitionKey{e.EntityKey}, e.ID, nil)); err != nil {
				return records, entries, err
			}
			entries++
		}
		if err := gone(p.Audit.Delete(ctx, store.PartitionKey{key}, r.ID, nil)); err != nil {
			return records, entries, err
		}
		records++
	}
	return records, entries, nil
}

// gone treats a document already removed as removed.
func gone(err error) error {
	if todo.IsKind(err, todo.NotFound) {
		return nil
	}
	return err
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

// ReadPurgeMarker reads what the purge left of owner's todo's oldest
// versions: the zero marker when nothing was purged.
func ReadPurgeMarker(ctx context.Context, audit store.Container, owner, todoID string) (PurgeMarker, error) {
	var m PurgeMarker
	it, err := audit.Read(ctx, store.PartitionKey{PurgeMarkerKey(owner, todoID)}, PurgeMarkerID)
	if todo.IsKind(err, todo.NotFound) {
		return m, nil
	}
	if err == nil && json.Unmarshal(it.Body, &m) != nil {
		return m, todo.Errorf(todo.Internal, "the purge marker of %q does not decode", todoID)
	}
	return m, err
}
