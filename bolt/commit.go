package bolt

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	bbolt "go.etcd.io/bbolt"

	"github.com/todoaudit/todo"
)

// committer groups concurrent writes into shared, fsynced commits. A write
// function checks all its conditions before it changes anything, so a
// failed condition (a *todo.Error) leaves the shared transaction untouched;
// any other failure rolls the whole group back and reruns each write alone.
// A commit the disk refused (see writeFault) is remembered as the fault
// until Store.Ping finds the disk writable again.
type committer struct {
	db *bbolt.DB
	// commitTx commits a transaction: (*bbolt.Tx).Commit, or in tests a
	// stand-in that fails as a full disk does where none can be made.
	commitTx func(*bbolt.Tx) error
	fault    atomic.Pointer[todo.Error]
	onFault  func(error) // hears a fault when it is first remembered
	// afterCommit, when set, runs after each group's commit attempts and
	// before the writers hear their outcome.
	afterCommit func()
	mu          sync.Mutex
	queue       []*pending
	running     bool
	idle        sync.WaitGroup
	// changed is closed, and replaced, by every commit.
	changedMu sync.Mutex
	changed   chan struct{}
}

func newCommitter(db *bbolt.DB, onFault func(error)) *committer {
	return &committer{db: db, commitTx: (*bbolt.Tx).Commit, onFault: onFault, changed: make(chan struct{})}
}

// changes returns a channel closed by the next commit.
func (c *committer) changes() <-chan struct{} {
	c.changedMu.Lock()
	defer c.changedMu.Unlock()
	return c.changed
}

// committed wakes whoever waits for a change, after a group's commit
// (or its writes' commits one by one).
func (c *committer) committed() {
	c.changedMu.Lock()
	close(c.changed)
	c.changed = make(chan struct{})
	c.changedMu.Unlock()
}

type pending struct {
	fn   func(*bbolt.Tx) error
	err  error
	done chan struct{}
}

// errDirty marks a write that failed after it had started changing the
// transaction; the group must then be rolled back.
var errDirty = errors.New("write failed mid-way")

func (c *committer) do(fn func(*bbolt.Tx) error) error {
	p := &pending{fn: fn, done: make(chan struct{})}
	c.mu.Lock()
	c.queue = append(c.queue, p)
	if !c.running {
		c.running = true
		c.idle.Add(1)
		go c.loop()
	}
	c.mu.Unlock()
	<-p.done
	return p.err
}

// wait blocks until no commit is in flight.
func (c *committer) wait() { c.idle.Wait() }

func (c *committer) loop() {
	defer c.idle.Done()
	for {
		c.mu.Lock()
		group := c.queue
		c.queue = nil
		if len(group) == 0 {
			c.running = false
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		if err := c.commit(group); err != nil {
			for _, p := range group {
				_ = c.commit([]*pending{p})
			}
		}
		if c.afterCommit != nil {
			c.afterCommit()
		}
		c.committed()
		for _, p := range group {
			close(p.done)
		}
	}
}

// commit runs a group in one transaction. It returns an error only when the
// whole group must be retried alone; per-write condition failures are kept
// in each pending.err. A panic (bbolt's answer to a damaged page) fails the
// group instead of the process.
func (c *committer) commit(group []*pending) (err error) {
	tx, err := c.db.Begin(true)
	if err == nil {
		defer func() {
			if r := recover(); r != nil {
				_ = tx.Rollback()
				failed := todo.Wrap(todo.Internal, fmt.Errorf("embedded store: %v", r), "the embedded store failed")
				for _, p := range group {
					p.err = failed
				}
				err = nil
			}
		}()
	}
	if err != nil {
		if len(group) == 1 {
			group[0].err = err
			return nil
		}
		return err
	}
	for _, p := range group {
		p.err = p.fn(tx)
		if p.err != nil && errors.Is(p.err, errDirty) {
			_ = tx.Rollback()
			if len(group) == 1 {
				return nil
			}
			return p.err
		}
	}
	if err := c.commitTx(tx); err != nil {
		err = writeFault(err)
		var fault *todo.Error
		if errors.As(err, &fault) && fault.Kind == todo.InsufficientStorage {
			if c.fault.Swap(fault) == nil && c.onFault != nil {
				c.onFault(fault)
			}
		}
		for _, p := range group {
			if p.err == nil {
				p.err = err
			}
		}
		return nil
	}
	return nil
}
