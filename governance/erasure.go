package governance

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// The states of an erasure job.
const (
	ErasureRunning = "running"
	ErasureDone    = "done"
)

// ErasureID is the id of user's erasure job: a digest, so that any user
// id fits the store's id limit, and deterministic, so that a user's own
// erasure is found without knowing its id and a second request finds the
// first.
func ErasureID(user string) string {
	sum := sha256.Sum256([]byte(user))
	return ErasureIDPrefix + hex.EncodeToString(sum[:16])
}

// ErasureCounts counts documents by kind.
type ErasureCounts struct {
	Todos       int `json:"todos"`
	Versions    int `json:"versions"`
	Records     int `json:"records"`
	Activity    int `json:"activity"`
	DeadLetters int `json:"deadLetters"`
	Idempotency int `json:"idempotency"`
}

// Erasure is an erasure job and its status: the user whose personal
// content is erased, who asked and why, how far it got and what it
// erased. The job is durable: a step saves its progress (Phase and
// Continuation) with the store's conditional write, so a crash loses at
// most one step, which the next run repeats (erasing is idempotent).
type Erasure struct {
	ID          string    `json:"id"`
	EntityKey   string    `json:"entityKey,omitempty"`
	Type        string    `json:"type,omitempty"`
	UserID      string    `json:"userId"`
	Reason      string    `json:"reason"`
	RequestedBy string    `json:"requestedBy"`
	RequestedAt time.Time `json:"requestedAt"`
	// Run counts the runs of the user's erasure, 1 for the first: a
	// request after one finished erases again what was written since.
	Run   int    `json:"run"`
	State string `json:"state"`
	// Phase is the step the job is at: todos, audit, activity,
	// deadLetters, scrub, then done.
	Phase string `json:"phase"`
	// HeldBy names the legal hold that pauses a running job.
	HeldBy string `json:"heldBy,omitempty"`
	// Erased counts the documents of the user that hold erased fields
	// (whether this run or an earlier one erased them); dead letters,
	// whose copy of the document is removed, as this run removed them.
	Erased ErasureCounts `json:"erased"`
	// FirstEncoding counts the documents left as they are: versions of
	// the first chain encoding commit to no field separately, so their
	// values cannot be removed without breaking their chain.
	FirstEncoding ErasureCounts `json:"firstEncoding"`
	UpdatedAt     time.Time     `json:"updatedAt"`
	FinishedAt    *time.Time    `json:"finishedAt,omitempty"`
	// Continuation resumes the phase's query: stored, never shown.
	Continuation string `json:"continuation,omitempty"`
}

// Status is e as the API shows it: without its storage properties.
func (e Erasure) Status() Erasure {
	e.EntityKey, e.Type, e.Continuation = "", "", ""
	return e
}

// OwnerStatus is e as the user it erases sees it: a legal hold that makes
// it wait is not named to the user the hold covers.
func (e Erasure) OwnerStatus() Erasure {
	e = e.Status()
	e.HeldBy = ""
	return e
}

// SelfErasureReason is the reason recorded for a user's erasure of their
// own data.
const SelfErasureReason = "the user's own request"

// RequestErasure starts, for the administrator actor, the erasure of a
// user's personal content (see Eraser) and returns it: the run under way
// when one is (the request is idempotent). Conflict, naming the hold,
// while a legal hold covers the user or one of the user's todos.
func RequestErasure(ctx context.Context, audit store.Container, actor, userID, reason string, at time.Time) (Erasure, error) {
	if err := todo.ValidateUserID(userID); err != nil {
		return Erasure{}, err
	}
	if err := checkReason(reason); err != nil {
		return Erasure{}, err
	}
	hold, err := HeldBy(ctx, audit, userID)
	if err == nil && hold != "" {
		err = todo.Errorf(todo.Conflict, "legal hold %s covers the data of user %q: release it before erasing", hold, userID)
	}
	if err != nil {
		return Erasure{}, err
	}
	return StartErasure(ctx, audit, userID, reason, actor, at)
}

// StartErasure records a run of user's erasure, asked for by actor with
// reason, and returns it: the run under way when there is one (a repeated
// request starts nothing new), else a new run. A run that a legal hold
// covers waits, touching nothing, until the hold is released (see HeldBy).
func StartErasure(ctx context.Context, audit store.Container, user, reason, actor string, at time.Time) (Erasure, error) {
	id := ErasureID(user)
	for range 3 {
		job := Erasure{ID: id, EntityKey: todo.GovernanceKey, Type: TypeErasure, UserID: user, Reason: reason,
			RequestedBy: actor, RequestedAt: at, UpdatedAt: at, Run: 1, State: ErasureRunning, Phase: phaseTodos}
		old, etag, err := ReadErasure(ctx, audit, id)
		switch {
		case todo.IsKind(err, todo.NotFound):
			_, err = audit.Create(ctx, governancePartition(), mustJSON(job))
		case err != nil:
		case old.State == ErasureRunning:
			return old, nil
		default:
			job.Run = old.Run + 1
			_, err = audit.Replace(ctx, governancePartition(), mustJSON(job), &store.WriteOptions{IfMatch: etag})
		}
		if todo.IsKind(err, todo.Conflict) || todo.IsKind(err, todo.PreconditionFailed) {
			continue // another request started a run meanwhile
		}
		return job, err
	}
	return Erasure{}, todo.Errorf(todo.Unavailable, "the erasure of user %q is being requested concurrently; try again", user)
}

// ReadErasure reads an erasure job and its ETag; NotFound when there is
// none.
func ReadErasure(ctx context.Context, audit store.Container, id string) (Erasure, string, error) {
	var job Erasure
	it, err := audit.Read(ctx, governancePartition(), id)
	if todo.IsKind(err, todo.NotFound) {
		return job, "", todo.Errorf(todo.NotFound, "erasure %q not found", id)
	}
	if err != nil {
		return job, "", err
	}
	if err := json.Unmarshal(it.Body, &job); err != nil || job.Type != TypeErasure {
		return job, "", todo.Errorf(todo.NotFound, "erasure %q not found", id)
	}
	return job, it.ETag, nil
}

// ErasureStatus reads the status of an erasure by id, for administrators.
func ErasureStatus(ctx context.Context, audit store.Container, id string) (Erasure, error) {
	if !strings.HasPrefix(id, ErasureIDPrefix) || todo.ValidateID(id) != nil {
		return Erasure{}, todo.Errorf(todo.NotFound, "erasure %q not found", id)
	}
	job, _, err := ReadErasure(ctx, audit, id)
	return job.Status(), err
}

// OwnErasure reads the status of the erasure of user's data as user sees
// it (OwnerStatus).
func OwnErasure(ctx context.Context, audit store.Container, user string) (Erasure, error) {
	job, _, err := ReadErasure(ctx, audit, ErasureID(user))
	if todo.IsKind(err, todo.NotFound) {
		return Erasure{}, todo.Errorf(todo.NotFound, "no erasure of your data was requested")
	}
	return job.OwnerStatus(), err
}
