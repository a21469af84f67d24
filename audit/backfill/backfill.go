// Package backfill writes the activity entries of the audit records that
// were written before the activity view existed: an existing deployment's
// audit container keeps its partition key (Cosmos DB cannot change it in
// place), and the view lives in partitions of its own in the same
// container, so upgrading is adding the entries of the old records. The
// backfill reads the audit container once, in bounded steps, from a
// checkpoint in the leases container, so that it resumes where it stopped
// after a crash or a restart and ends when it reaches the end.
package backfill

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit"
	"github.com/todoaudit/todo/store"
)

// Backfill adds the activity entries of one audit container's records.
type Backfill struct {
	Audit  store.Container
	Leases store.Container
	// Pages is how many query pages of PageSize records one Step reads;
	// DefaultPages and DefaultPageSize when zero.
	Pages, PageSize int
}

// DefaultPages and DefaultPageSize bound the work of one step.
const (
	DefaultPages    = 10
	DefaultPageSize = 200
)

// finished is the checkpoint of a backfill that reached the end.
const finished = "done"

// Result says what one step did.
type Result struct {
	Records int // audit records read
	Entries int // activity entries written
	Done    bool
}

func (b *Backfill) checkpointID() string { return "activity-backfill-" + b.Audit.Spec().Name }

// Step reads up to Pages pages of audit records from the checkpoint on,
// writes their activity entries (an upsert each: a record whose entries
// exist already is rewritten to the same), and saves the checkpoint after
// every page. Once the end is reached every later Step does nothing but
// read the checkpoint. It is background work: its store calls go at low
// priority.
func (b *Backfill) Step(ctx context.Context) (Result, error) {
	ctx = store.WithLowPriority(ctx)
	var res Result
	cont, err := store.LoadCheckpoint(ctx, b.Leases, b.checkpointID())
	if err != nil || cont == finished {
		res.Done = err == nil
		return res, err
	}
	pages, size := b.Pages, b.PageSize
	if pages <= 0 {
		pages = DefaultPages
	}
	if size <= 0 {
		size = DefaultPageSize
	}
	// Audit records have a version and no owner; activity entries have an
	// owner, dead letters no version.
	q := store.Query{
		Filters:      []store.Filter{{Field: "version", Op: store.Ge, Value: int64(1)}, {Field: "owner", Op: store.NotDefined}},
		PageSize:     size,
		Continuation: cont,
	}
	for range pages {
		page, err := b.Audit.Query(ctx, q)
		if err != nil {
			return res, err
		}
		var entries []todo.AuditRecord
		for _, it := range page.Items {
			var rec todo.AuditRecord
			var entity struct {
				Category string `json:"category"`
			}
			if json.Unmarshal(it.Body, &rec) != nil || todo.IsActivityKey(rec.EntityKey) || rec.EntityType != todo.EntityTypeTodo ||
				json.Unmarshal(rec.Entity, &entity) != nil {
				continue
			}
			res.Records++
			entries = append(entries, todo.ActivityEntries(rec, entity.Category)...)
		}
		if err := (audit.Outcome{Records: entries}).Write(ctx, b.Audit); err != nil {
			return res, err
		}
		res.Entries += len(entries)
		next := page.Continuation
		if next == "" {
			next, res.Done = finished, true
		}
		if err := store.SaveCheckpoint(ctx, b.Leases, b.checkpointID(), next); err != nil {
			return res, err
		}
		if res.Done {
			return res, nil
		}
		q.Continuation = next
	}
	return res, nil
}

// String is a step's result as one line for the logs.
func (r Result) String() string {
	state := "continues"
	if r.Done {
		state = "done"
	}
	return fmt.Sprintf("activity backfill: %d audit records read, %d activity entries written, %s", r.Records, r.Entries, state)
}
