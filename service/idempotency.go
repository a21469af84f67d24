package service

// Safe retries. A request carrying an idempotency key runs once: a record
// of it, created before the change (create-only, so one of two concurrent
// requests wins), lives in the partition the change writes to, so a
// redelivery costs a point read. It holds the request's fingerprint and,
// once the change is done, its result, which a retry with the same key and
// fingerprint is answered with; the record expires after a day.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/backoff"
	"github.com/todoaudit/todo/repo"
	"github.com/todoaudit/todo/store"
)

// Idempotency names a request that must run at most once: the caller's
// key, and the fingerprint of the request (a hash of its method, path and
// body), which a retry must repeat.
type Idempotency struct {
	Key, Fingerprint string
}

// TypeIdempotency is the document type of idempotency records.
const TypeIdempotency = "idempotency"

// Idempotency records live a day; a request that finds one in progress
// waits for it at most idempotencyWait; one in progress for longer than
// idempotencyStale was abandoned (its handler stopped before recording the
// result), and the next request with the key runs the change again.
const (
	idempotencyTTL   = 24 * time.Hour
	idempotencyWait  = 10 * time.Second
	idempotencyStale = 2 * time.Minute
)

// Idempotency record states.
const (
	running = "in progress"
	done    = "done"
)

var idempotencyPoll = backoff.Policy{Base: 5 * time.Millisecond, Max: 200 * time.Millisecond}

// idempotencyRecord is one request's record, in the partition its change
// writes to: it carries that partition's key properties.
type idempotencyRecord struct {
	ID           string     `json:"id"`
	Type         string     `json:"type"`
	UserID       string     `json:"userId"`
	Category     string     `json:"category,omitempty"`
	PartitionKey string     `json:"partitionKey,omitempty"`
	Fingerprint  string     `json:"fingerprint"`
	State        string     `json:"state"`
	Started      time.Time  `json:"started"`
	Result       *todo.Todo `json:"result,omitempty"`
	ETag         string     `json:"etag,omitempty"`
	Created      bool       `json:"created,omitempty"`
	TTL          int        `json:"ttl"`
}

// CheckIdempotencyKey validates a key: 1 to 255 printable ASCII
// characters.
func CheckIdempotencyKey(key string) error {
	if key == "" || len(key) > 255 {
		return todo.Errorf(todo.Invalid, "Idempotency-Key must be 1 to 255 characters")
	}
	for i := range len(key) {
		if key[i] < 0x20 || key[i] > 0x7e {
			return todo.Errorf(todo.Invalid, "Idempotency-Key must be printable ASCII")
		}
	}
	return nil
}

// idempotencyID is the record id of user's key: per caller, so that
// alice's key never matches bob's, even in a partition they share.
func idempotencyID(user, key string) string {
	h := sha256.Sum256([]byte(user + "\x00" + key))
	return "idempotency:" + hex.EncodeToString(h[:16])
}

// CreateOnce is Create run at most once per idempotency key: the new todo's
// id derives from the key, so a retry after a lost answer lands on it.
func (s *Service) CreateOnce(ctx context.Context, f todo.Fields, idem Idempotency) (Result, error) {
	user, f, err := checkNew(ctx, f)
	if err != nil {
		return Result{}, err
	}
	if err := CheckIdempotencyKey(idem.Key); err != nil {
		return Result{}, err
	}
	key := s.scheme.DerivedKey(user, f.Category, idem.Key)
	return s.once(ctx, user, key.PartitionKey, idem, func() (Result, error) {
		res, err := s.create(ctx, user, f, key)
		if todo.IsKind(err, todo.Conflict) {
			// An abandoned attempt created it before recording so.
			if d, gerr := s.load(ctx, key.ID); gerr == nil && d.Value.Version == 1 && d.Value.LastOperation == todo.OpCreate {
				return Result{Todo: d.Value, ETag: d.ETag, Created: true}, nil
			}
		}
		return res, err
	})
}

// MoveOnce is Move run at most once per idempotency key.
func (s *Service) MoveOnce(ctx context.Context, id, category, ifMatch string, idem Idempotency) (Result, error) {
	return s.onceFor(ctx, id, idem, func() (Result, error) { return s.Move(ctx, id, category, ifMatch) })
}

// RollbackOnce is Rollback run at most once per idempotency key.
func (s *Service) RollbackOnce(ctx context.Context, id string, n int64, ifMatch string, idem Idempotency) (Result, error) {
	return s.onceFor(ctx, id, idem, func() (Result, error) { return s.Rollback(ctx, id, n, ifMatch) })
}

// onceFor runs a change of the caller's todo id at most once, recording it
// in the todo's partition.
func (s *Service) onceFor(ctx context.Context, id string, idem Idempotency, change func() (Result, error)) (Result, error) {
	user, err := caller(ctx)
	if err != nil {
		return Result{}, err
	}
	if err := CheckIdempotencyKey(idem.Key); err != nil {
		return Result{}, err
	}
	pk, err := s.scheme.Resolve(user, id)
	if err != nil {
		return Result{}, err
	}
	return s.once(ctx, user, pk, idem, change)
}

// once runs change unless a record of idem in pk says it ran: then it
// answers the recorded result. A record of another request under the same
// key is refused (Unprocessable), one still in progress is waited for, up
// to a deadline (then Conflict). A change that fails leaves no record, so
// that a retry runs it again.
func (s *Service) once(ctx context.Context, user string, pk store.PartitionKey, idem Idempotency, change func() (Result, error)) (Result, error) {
	rec := idempotencyRecord{ID: idempotencyID(user, idem.Key), Type: TypeIdempotency, UserID: user,
		Fingerprint: idem.Fingerprint, State: running, TTL: int(idempotencyTTL / time.Second)}
	for i, path := range s.scheme.Paths() {
		switch path {
		case "/category":
			rec.Category = pk[i]
		case "/partitionKey":
			rec.PartitionKey = pk[i]
		}
	}
	wait, cancel := context.WithTimeout(ctx, idempotencyWait)
	defer cancel()
	inProgress := func(err error) error {
		if wait.Err() == nil {
			return err
		}
		// Waiting ran out of time, and with it, maybe, the call that failed.
		e := todo.Errorf(todo.Conflict, "a request with Idempotency-Key %q is still in progress: retry it later", idem.Key)
		e.RetryAfter = time.Second
		return e
	}
	for attempt := 0; ; attempt++ {
		rec.Started = s.now().UTC()
		etag, err := s.putRecord(ctx, pk, rec, store.BatchCreate, "")
		if err == nil {
			return s.record(ctx, pk, rec, etag, change)
		}
		if !todo.IsKind(err, todo.Conflict) {
			return Result{}, inProgress(err)
		}
		d, err := s.idempotency.GetIn(ctx, pk, rec.ID)
		switch {
		case todo.IsKind(err, todo.NotFound):
			continue // the other request failed and removed its record
		case err != nil:
			return Result{}, inProgress(err)
		case d.Value.UserID != user:
			return Result{}, todo.Errorf(todo.Internal, "idempotency record %s belongs to another user", rec.ID)
		case d.Value.Fingerprint != idem.Fingerprint:
			return Result{}, todo.Errorf(todo.Unprocessable, "Idempotency-Key %q was used for another request: send a new key for a new request", idem.Key)
		case d.Value.State == done && d.Value.Result != nil:
			return Result{Todo: *d.Value.Result, ETag: d.Value.ETag, Created: d.Value.Created}, nil
		case s.now().Sub(d.Value.Started) > idempotencyStale:
			// Abandoned: take it over and run the change again.
			rec.Started = s.now().UTC()
			etag, err := s.putRecord(ctx, pk, rec, store.BatchReplace, d.ETag)
			if err == nil {
				return s.record(ctx, pk, rec, etag, change)
			}
			if !todo.IsKind(err, todo.PreconditionFailed) && !todo.IsKind(err, todo.NotFound) {
				return Result{}, inProgress(err)
			}
			continue // another request took it over first
		}
		if err := backoff.Sleep(wait, idempotencyPoll.Delay(attempt)); err != nil {
			return Result{}, inProgress(err)
		}
	}
}

// record runs change for the record rec (in progress, ETag etag) and
// records its result, or removes the record when it failed.
func (s *Service) record(ctx context.Context, pk store.PartitionKey, rec idempotencyRecord, etag string, change func() (Result, error)) (Result, error) {
	res, err := change()
	// The record is settled even when the caller has gone away.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err != nil {
		_ = s.todos.Remove(ctx, pk, rec.ID, etag) // a retry runs the change again
		return res, err
	}
	// Should recording fail, the change still happened: it is answered,
	// and a retry finds the record in progress until it is stale.
	rec.State, rec.Result, rec.ETag, rec.Created = done, &res.Todo, res.ETag, res.Created
	_, _ = s.putRecord(ctx, pk, rec, store.BatchReplace, etag)
	return res, nil
}

// putRecord writes an idempotency record, conditional on ifMatch.
func (s *Service) putRecord(ctx context.Context, pk store.PartitionKey, rec idempotencyRecord, kind store.OpKind, ifMatch string) (string, error) {
	op, err := repo.Replace(rec, ifMatch)
	if kind == store.BatchCreate {
		op, err = repo.Create(rec)
	}
	if err != nil {
		return "", err
	}
	res, err := s.idempotency.Batch(ctx, pk, []store.Op{op})
	if err != nil {
		return "", err
	}
	return res[0].ETag, nil
}
