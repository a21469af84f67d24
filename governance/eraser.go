package governance

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/repo"
	"github.com/todoaudit/todo/store"
)

// The phases of a job, in order.
const (
	phaseTodos       = "todos"
	phaseAudit       = "audit"
	phaseActivity    = "activity"
	phaseDeadLetters = "deadLetters"
	phaseScrub       = "scrub"
	phaseDone        = "done"
)

var phases = []string{phaseTodos, phaseAudit, phaseActivity, phaseDeadLetters, phaseScrub, phaseDone}

// DefaultErasurePageSize is how many documents one step of an erasure
// reads.
const DefaultErasurePageSize = 500

// Eraser runs the erasure jobs of one deployment. A job forgets a user on
// request: it removes the values and salts of the personal fields
// (todo.PersonalFields) of every todo document, version document and
// audit record of the user, the copies dead letters, idempotency records
// and activity entries of the first form keep (an entry now refers to its
// record and holds none of its content), and, on the embedded store, the
// old bytes the file still holds. Versions of the second chain encoding
// keep their digests, so every chain, log leaf and checkpoint still
// verifies; versions of the first are left as they are and counted.
//
// A job (Erasure) is advanced one page of documents at a time, its
// progress saved after each page: a process that stops half way (a crash,
// a restart, a deploy) loses at most one page, which the next run repeats,
// since erasing an erased document changes nothing. A run ends with a
// governance event and activity entries for the admin audit view, written
// in the partitions no erasure touches.
type Eraser struct {
	Todos, Audit store.Container
	Scheme       partition.Scheme
	// Scrub, when set, runs once a job's documents are erased: the
	// embedded store overwrites the pages its file freed, which still hold
	// the old bytes.
	Scrub func(ctx context.Context) error
	// PageSize bounds one step; DefaultErasurePageSize when zero.
	PageSize int
	// Now is the clock, time.Now when nil.
	Now func() time.Time
	// Log receives what a job leaves and why; nil discards it.
	Log *slog.Logger
	// stopAfter, when positive, ends Run after that many steps, as a crash
	// would (tests).
	stopAfter int

	once sync.Once
	wake chan struct{}
}

func (e *Eraser) now() time.Time {
	if e.Now != nil {
		return e.Now().UTC()
	}
	return time.Now().UTC()
}

func (e *Eraser) log() *slog.Logger {
	if e.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return e.Log
}

// Wake asks Loop to run now.
func (e *Eraser) Wake() {
	select {
	case e.wakeup() <- struct{}{}:
	default:
	}
}

func (e *Eraser) wakeup() chan struct{} {
	e.once.Do(func() { e.wake = make(chan struct{}, 1) })
	return e.wake
}

// Pending reports whether a job is running: one query, at low priority,
// for the start-up to decide whether Loop resumes at once.
func (e *Eraser) Pending(ctx context.Context) (bool, error) {
	jobs, err := e.running(store.WithLowPriority(ctx))
	return len(jobs) > 0, err
}

// Loop runs the jobs that are running when woken and every interval, and
// at once when resume is set (a stopped process left a job), until ctx
// ends.
func (e *Eraser) Loop(ctx context.Context, every time.Duration, resume bool) {
	wake := e.wakeup()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if resume {
			if _, err := e.Run(ctx); err != nil && ctx.Err() == nil {
				e.log().Error("erasure failed; it resumes on the next run", "error", err.Error())
			}
		}
		resume = true
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-t.C:
		}
	}
}

// ErasureResult says what a run of the erasures did.
type ErasureResult struct {
	Steps    int // pages worked through
	Finished int // jobs that finished
}

// String is the run as one line for the logs.
func (r ErasureResult) String() string {
	return fmt.Sprintf("erasure: %d steps, %d jobs finished", r.Steps, r.Finished)
}

// Run advances every running job until each is done, paused by a legal
// hold, or lost to another runner. It is background work: its store
// calls go at low priority.
func (e *Eraser) Run(ctx context.Context) (ErasureResult, error) {
	ctx = store.WithLowPriority(ctx)
	var res ErasureResult
	jobs, err := e.running(ctx)
	if err != nil {
		return res, err
	}
	for _, id := range jobs {
		for {
			if e.stopAfter > 0 && res.Steps >= e.stopAfter {
				return res, nil
			}
			more, finished, err := e.step(ctx, id)
			if err != nil {
				return res, err
			}
			res.Steps++
			if finished {
				res.Finished++
			}
			if !more {
				break
			}
		}
	}
	return res, nil
}

// running lists the ids of the jobs that are running: one query of the
// governance partition by id range.
func (e *Eraser) running(ctx context.Context) ([]string, error) {
	q := store.Query{
		PartitionKey: governancePartition(),
		Filters:      store.IDPrefix(ErasureIDPrefix),
		PageSize:     store.MaxPageSize,
	}
	var out []string
	for {
		page, err := e.Audit.Query(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, it := range page.Items {
			var job Erasure
			if json.Unmarshal(it.Body, &job) == nil && job.Type == TypeErasure && job.State == ErasureRunning {
				out = append(out, job.ID)
			}
		}
		if q.Continuation = page.Continuation; q.Continuation == "" {
			return out, nil
		}
	}
}

// step works through one page of the job's phase and saves its progress;
// more says the job has work left this run.
func (e *Eraser) step(ctx context.Context, id string) (more, finished bool, err error) {
	job, etag, err := ReadErasure(ctx, e.Audit, id)
	if err != nil || job.State != ErasureRunning {
		return false, false, err
	}
	hold, err := HeldBy(ctx, e.Audit, job.UserID)
	if err != nil {
		return false, false, err
	}
	if hold != "" || job.HeldBy != "" {
		if hold != job.HeldBy {
			job.HeldBy = hold
			err = e.save(ctx, &job, etag)
		}
		return hold == "", false, err // paused while held
	}
	if job.Phase == phaseDone || job.Phase == phaseScrub {
		if e.Scrub != nil {
			if err := e.Scrub(ctx); err != nil {
				return false, false, err
			}
		}
		return false, true, e.finish(ctx, &job, etag)
	}
	var w work
	next, err := e.page(ctx, &job, &w)
	if err == nil {
		err = w.flush(ctx)
	}
	if err != nil {
		return false, false, err
	}
	if w.retry {
		return true, false, nil // a document changed under the page: read it again
	}
	add(&job.Erased, w.erased)
	add(&job.FirstEncoding, w.firstEncoding)
	job.Continuation = next
	if next == "" {
		for i, p := range phases {
			if p == job.Phase {
				job.Phase = phases[i+1]
				break
			}
		}
	}
	err = e.save(ctx, &job, etag)
	if todo.IsKind(err, todo.PreconditionFailed) {
		return false, false, nil // another runner has this job
	}
	return true, false, err
}

func (e *Eraser) save(ctx context.Context, job *Erasure, etag string) error {
	job.UpdatedAt = e.now()
	_, err := e.Audit.Replace(ctx, governancePartition(), mustJSON(job), &store.WriteOptions{IfMatch: etag})
	return err
}

// finish records the run: its activity entries in the admin's and the
// user's activity partitions, then, in one batch, the job done and its
// governance event.
func (e *Eraser) finish(ctx context.Context, job *Erasure, etag string) error {
	at := e.now()
	job.State, job.Phase, job.FinishedAt, job.UpdatedAt = ErasureDone, phaseDone, &at, at
	summary := mustJSON(job.Status())
	for _, entry := range entries(job, summary, at) {
		if _, err := e.Audit.Upsert(ctx, store.PartitionKey{entry.EntityKey}, mustJSON(entry), nil); err != nil {
			return err
		}
	}
	ev := NewEvent(Event{Action: "erase", Actor: job.RequestedBy, Reason: job.Reason, UserID: job.UserID,
		ErasureID: job.ID, Erased: &job.Erased, FirstEncoding: &job.FirstEncoding}, at)
	_, err := e.Audit.Batch(ctx, governancePartition(), []store.Op{
		{Kind: store.BatchReplace, Doc: mustJSON(job), IfMatch: etag},
		{Kind: store.BatchCreate, Doc: mustJSON(ev)},
	})
	if todo.IsKind(err, todo.PreconditionFailed) {
		return nil // another runner finished it
	}
	if err == nil {
		e.log().Info("erasure finished", "erasure", job.ID, "run", job.Run, "records", job.Erased.Records,
			"firstEncodingRecords", job.FirstEncoding.Records)
	}
	return err
}

// entries are the activity entries of a finished run: in the partition
// of who asked and, when that is someone else, of the user erased, so that
// the admin audit view finds it by actor and by owner. They are not
// records of a todo: no chain covers them (their hash is the SHA-256 of
// their entity, the run's status) and no erasure touches them.
func entries(job *Erasure, summary []byte, at time.Time) []todo.AuditRecord {
	digest := sha256.Sum256(summary)
	return todo.PlaceActivity(todo.AuditRecord{EntityID: job.ID, EntityType: todo.EntityTypeErasure, Version: int64(job.Run),
		Operation: todo.OpErase, Entity: summary, DateCreatedUTC: at, Actor: job.RequestedBy, Owner: job.UserID,
		Hash: hex.EncodeToString(digest[:])}, job.ID+"/"+strconv.Itoa(job.Run))
}

// work is what one page did.
type work struct {
	erased, firstEncoding ErasureCounts
	// retry is set when a document changed between its read and its
	// write: the page is read again.
	retry  bool
	writes []write
}

func add(to *ErasureCounts, c ErasureCounts) {
	to.Todos += c.Todos
	to.Versions += c.Versions
	to.Records += c.Records
	to.Activity += c.Activity
	to.DeadLetters += c.DeadLetters
	to.Idempotency += c.Idempotency
}

func (e *Eraser) pageSize() int {
	if e.PageSize > 0 {
		return e.PageSize
	}
	return DefaultErasurePageSize
}

// page erases one page of the job's phase and returns the continuation
// of the next ("" when the phase is done).
func (e *Eraser) page(ctx context.Context, job *Erasure, w *work) (string, error) {
	user := job.UserID
	switch job.Phase {
	case phaseTodos:
		// Every document of the user in the todo container: todos,
		// versions, idempotency records, at the scope the scheme lists
		// the user's todos.
		plan := e.Scheme.List(user, nil)
		p, err := repo.New[json.RawMessage](e.Todos, nil).Query(ctx, repo.Spec{Partitions: plan.Partitions,
			Filters: []store.Filter{{Field: "userId", Op: store.Eq, Value: user}}, PageSize: e.pageSize(), Continuation: job.Continuation})
		if err != nil {
			return "", err
		}
		for _, d := range p.Items {
			if err := e.todoDocument(ctx, d, w); err != nil {
				return "", err
			}
		}
		return p.Continuation, nil
	case phaseAudit, phaseActivity:
		// The user's audit records are the partitions whose entity key
		// starts todo/<user>/; the activity entries of the user's todos
		// have the user as their owner.
		filters := []store.Filter{{Field: "entityKey", Op: store.Ge, Value: todo.EntityKey(user, "")},
			{Field: "entityKey", Op: store.Lt, Value: todo.EntityTypeTodo + "/" + user + "0"}}
		if job.Phase == phaseActivity {
			filters = []store.Filter{{Field: "owner", Op: store.Eq, Value: user}}
		}
		p, err := e.Audit.Query(ctx, store.Query{Filters: filters, PageSize: e.pageSize(), Continuation: job.Continuation})
		if err != nil {
			return "", err
		}
		for _, it := range p.Items {
			if err := e.record(ctx, it, job.Phase == phaseActivity, w); err != nil {
				return "", err
			}
		}
		return p.Continuation, nil
	case phaseDeadLetters:
		p, err := e.Audit.Query(ctx, store.Query{PartitionKey: store.PartitionKey{todo.DeadLetterKey}, PageSize: e.pageSize(),
			Continuation: job.Continuation})
		if err != nil {
			return "", err
		}
		for _, it := range p.Items {
			if err := e.deadLetter(ctx, it, user, w); err != nil {
				return "", err
			}
		}
		return p.Continuation, nil
	}
	return "", todo.Errorf(todo.Internal, "erasure %s is at an unknown phase %q", job.ID, job.Phase)
}

// todoDocument erases one document of the todo container.
func (e *Eraser) todoDocument(ctx context.Context, d repo.Doc[json.RawMessage], w *work) error {
	var head struct {
		todo.Todo
		TS     int64           `json:"_ts"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(d.Value, &head); err != nil {
		return nil // not a document this code wrote; nothing of it is read as a todo
	}
	pk := e.Scheme.KeyOf(&head.Todo)
	var doc json.RawMessage
	switch head.Type {
	case todo.TypeTodo:
		if head.Chain < hashchain.V2 {
			w.firstEncoding.Todos++
			return nil
		}
		w.erased.Todos++
		out, changed, err := erasePersonalJSON(d.Value)
		if err != nil || !changed {
			return err
		}
		doc = out
	case todo.TypeVersion:
		var v todo.Version
		if err := json.Unmarshal(d.Value, &v); err != nil {
			return nil
		}
		if v.Chain < hashchain.V2 {
			w.firstEncoding.Versions++
			return nil
		}
		changed, err := hashchain.ErasePersonalVersion(&v)
		if err != nil {
			return err
		}
		if v.Commitments.AnyErased() {
			w.erased.Versions++
		}
		if !changed {
			return nil
		}
		if v.TTL > 0 {
			// A write restarts an item's time to live: keep the expiry it had.
			age := int(e.now().Unix() - head.TS)
			v.TTL = max(1, v.TTL-age)
		}
		doc = mustJSON(v)
	case "idempotency":
		if len(head.Result) == 0 || string(head.Result) == "null" {
			return nil
		}
		result, changed, err := erasePersonalJSON(head.Result)
		w.erased.Idempotency++
		if err != nil || !changed {
			return err
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(d.Value, &m); err != nil {
			return err
		}
		m["result"] = result
		doc = mustJSON(m)
	default:
		return nil
	}
	w.replace(e.Todos, pk, doc, d.ETag)
	return nil
}

// erasePersonalJSON removes the personal fields of a todo encoded as a
// JSON object, keeping every other property as it is (a todo document
// with its partition key properties, the result an idempotency record
// keeps): a field the todo omits when empty is removed, the title becomes
// empty. It reports whether anything changed.
func erasePersonalJSON(doc json.RawMessage) (json.RawMessage, bool, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(doc, &m); err != nil {
		return doc, false, err
	}
	changed := false
	for _, name := range todo.PersonalFields {
		p, _ := todo.PropertyNamed(name)
		old, ok := m[name]
		if !ok {
			continue
		}
		if p.OmitEmpty {
			delete(m, name)
			changed = true
			continue
		}
		zero, _ := json.Marshal(reflect.Zero(p.Type).Interface())
		if string(old) != string(zero) {
			m[name] = zero
			changed = true
		}
	}
	if !changed {
		return doc, false, nil
	}
	out, err := json.Marshal(m)
	return out, true, err
}

// record erases one audit record or activity entry (a reference holds
// nothing to erase).
func (e *Eraser) record(ctx context.Context, it store.Item, entry bool, w *work) error {
	var r todo.AuditRecord
	if err := json.Unmarshal(it.Body, &r); err != nil || r.EntityType != todo.EntityTypeTodo || (r.Owner != "") != entry {
		return nil
	}
	if entry && r.IsReference() {
		// It holds no content of the record it refers to, which the
		// audit phase erased: the entry shows the record as erased.
		w.erased.Activity++
		return nil
	}
	count, first := &w.erased.Records, &w.firstEncoding.Records
	if entry {
		count, first = &w.erased.Activity, &w.firstEncoding.Activity
	}
	if r.Chain < hashchain.V2 {
		*first++
		return nil
	}
	changed, err := hashchain.ErasePersonalRecord(&r)
	if err != nil {
		// A record that does not decode strictly was not written by this
		// code: verify reports it; the erasure leaves it as it is.
		e.log().Warn("erasure: an audit record is left as it is", "record", it.ID, "entityKey", r.EntityKey, "error", err.Error())
		return nil
	}
	if r.Commitments.AnyErased() {
		*count++
	}
	if !changed {
		return nil
	}
	w.replace(e.Audit, it.PartitionKey, mustJSON(r), it.ETag)
	return nil
}

// deadLetter removes the copy of the user's document a dead letter keeps.
func (e *Eraser) deadLetter(ctx context.Context, it store.Item, user string, w *work) error {
	var d todo.DeadLetter
	if err := json.Unmarshal(it.Body, &d); err != nil || d.Type != todo.TypeDeadLetter || !belongsTo(d.Document, user) {
		return nil
	}
	d.Document = nil
	d.Reason += " (its document was erased with its user's personal data)"
	w.erased.DeadLetters++
	w.replace(e.Audit, store.PartitionKey{todo.DeadLetterKey}, mustJSON(d), it.ETag)
	return nil
}

// belongsTo reports whether a document a dead letter kept is the user's:
// a todo or version document (userId), an audit record (its entity key or
// entity).
func belongsTo(doc json.RawMessage, user string) bool {
	if len(doc) == 0 {
		return false
	}
	var d struct {
		UserID    string `json:"userId"`
		EntityKey string `json:"entityKey"`
		Entity    struct {
			UserID string `json:"userId"`
		} `json:"entity"`
	}
	if json.Unmarshal(doc, &d) != nil {
		return false
	}
	prefix := todo.EntityKey(user, "")
	return d.UserID == user || d.Entity.UserID == user || (len(d.EntityKey) > len(prefix) && d.EntityKey[:len(prefix)] == prefix)
}

// replace queues an erased document to be written in place of the one
// read with etag.
func (w *work) replace(c store.Container, pk store.PartitionKey, doc []byte, etag string) {
	w.writes = append(w.writes, write{c, pk, store.Op{Kind: store.BatchReplace, Doc: doc, IfMatch: etag}})
}

// write is one queued replacement.
type write struct {
	c  store.Container
	pk store.PartitionKey
	op store.Op
}

// flush writes a page's replacements: one transactional batch per
// logical partition (at most store.MaxBatchOps operations each), the
// partitions concurrently (bounded in bytes as well). A document changed or removed since it was read
// fails its batch and makes the page be read again.
func (w *work) flush(ctx context.Context) error {
	type group struct {
		c     store.Container
		pk    store.PartitionKey
		ops   []store.Op
		bytes int
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, wr := range w.writes {
		key := wr.c.Spec().Name + "\x00" + strings.Join(wr.pk, "\x00")
		g := byKey[key]
		if g == nil || len(g.ops) == store.MaxBatchOps || g.bytes+len(wr.op.Doc) > store.MaxBatchBytes {
			g = &group{c: wr.c, pk: wr.pk}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.ops, g.bytes = append(g.ops, wr.op), g.bytes+len(wr.op.Doc)
	}
	var mu sync.Mutex
	eg, ctx := errgroup.WithContext(ctx)
	eg.SetLimit(32)
	for _, g := range groups {
		eg.Go(func() error {
			_, err := g.c.Batch(ctx, g.pk, g.ops)
			if todo.IsKind(err, todo.PreconditionFailed) || todo.IsKind(err, todo.NotFound) {
				mu.Lock()
				w.retry = true
				mu.Unlock()
				return nil
			}
			return err
		})
	}
	return eg.Wait()
}
