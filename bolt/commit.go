package bolt

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

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
	mu       sync.Mutex
	queue    []*pending
	running  bool
	idle     sync.WaitGroup
	// arrived is signalled (without blocking) by every write queued, for
	// a loop lingering on a small group.
	arrived chan struct{}
	// changed is closed, and replaced, by every commit.
	changedMu sync.Mutex
	changed   chan struct{}
}

// maxLinger bounds how long a commit waits for its group to fill.
const maxLinger = 2 * time.Millisecond

func newCommitter(db *bbolt.DB) *committer {
	return &committer{db: db, commitTx: (*bbolt.Tx).Commit, arrived: make(chan struct{}, 1), changed: make(chan struct{})}
}

// changes returns a channel closed by the next commit.
func (c *committer) changes() <-chan struct{} {
	c.changedMu.Lock()
	defer c.changedMu.Unlock()
	return c.changed
}

// committed wakes whoever waits for a change.
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
	select {
	case c.arrived <- struct{}{}:
	default:
	}
	<-p.done
	return p.err
}

// wait blocks until no commit is in flight.
func (c *committer) wait() { c.idle.Wait() }

// loop commits the queued writes, a group at a time, until none is left.
// Writers that were all waiting on one commit come back to the next one
// a few at a time, as each gets its answer and sends its next write: a
// group that starts with the first of them shares its fsync with few. So
// when fewer writes are queued than the last group held, the loop waits
// for more, up to a quarter of the last commit's duration (at most
// maxLinger): a lone writer never waits, and many share each fsync.
func (c *committer) loop() {
	defer c.idle.Done()
	last, took := 0, time.Duration(0)
	for {
		group := c.next(last, min(took/4, maxLinger))
		if len(group) == 0 {
			return
		}
		start := time.Now()
		if err := c.commit(group); err != nil {
			for _, p := range group {
				_ = c.commit([]*pending{p})
			}
		}
		last, took = len(group), time.Since(start)
		for _, p := range group {
			close(p.done)
		}
	}
}

// next takes the queued writes once there are want of them or linger has
// passed, whichever comes first; none when the queue is empty, and the
// loop then ends.
func (c *committer) next(want int, linger time.Duration) []*pending {
	var timeout <-chan time.Time
	for {
		c.mu.Lock()
		n := len(c.queue)
		if n == 0 || n >= want || linger <= 0 {
			group := c.queue
			c.queue = nil
			if n == 0 {
				c.running = false
			}
			c.mu.Unlock()
			return group
		}
		c.mu.Unlock()
		if timeout == nil {
			t := time.NewTimer(linger)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-c.arrived:
		case <-timeout:
			linger = 0
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
			c.fault.Store(fault)
		}
		for _, p := range group {
			if p.err == nil {
				p.err = err
			}
		}
		return nil
	}
	c.committed()
	return nil
}
