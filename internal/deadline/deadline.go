// Package deadline is a context with a deadline, as context.WithDeadline
// gives, that starts its timer and joins its parent's cancellation only
// when something asks for its Done channel. A request whose store answers
// without waiting (the embedded store's reads check Err and never select
// on Done) then pays for no timer and no registration with its parent,
// which were a twentieth of a point read's instructions.
package deadline

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Context is a child context that expires at a deadline. It can be
// embedded and initialised in place; Cancel it when done, as the cancel
// function of context.WithDeadline.
type Context struct {
	parent   context.Context
	at       time.Time
	canceled atomic.Bool

	mu   sync.Mutex                  // guards making started
	real atomic.Pointer[cancelState] // set by the first Done
}

// cancelState is the standard context Done made, and its cancel.
type cancelState struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// Init makes c a child of parent that expires at the earlier of at and the
// parent's own deadline.
func (c *Context) Init(parent context.Context, at time.Time) *Context {
	c.parent, c.at = parent, at
	c.canceled.Store(false)
	c.real.Store(nil)
	if d, ok := parent.Deadline(); ok && d.Before(at) {
		c.at = d
	}
	return c
}

// Deadline is the earlier of the deadline given and the parent's.
func (c *Context) Deadline() (time.Time, bool) { return c.at, true }

// Done starts, once, what closes the channel: the deadline's timer and
// the parent's cancellation.
func (c *Context) Done() <-chan struct{} {
	return c.started().ctx.Done()
}

func (c *Context) started() *cancelState {
	if s := c.real.Load(); s != nil {
		return s
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.real.Load(); s != nil {
		return s
	}
	ctx, cancel := context.WithDeadline(c.parent, c.at)
	if c.canceled.Load() {
		cancel()
	}
	s := &cancelState{ctx, cancel}
	c.real.Store(s)
	return s
}

// Err is, once Done was asked for, its channel's; before, context.Canceled
// after Cancel, else the parent's error, else context.DeadlineExceeded once
// the deadline has passed.
func (c *Context) Err() error {
	if s := c.real.Load(); s != nil {
		return s.ctx.Err()
	}
	if c.canceled.Load() {
		return context.Canceled
	}
	if err := c.parent.Err(); err != nil {
		return err
	}
	if !time.Now().Before(c.at) {
		return context.DeadlineExceeded
	}
	return nil
}

// Value asks the standard context once Done made it (so that
// context.Cause finds it), the parent before.
func (c *Context) Value(key any) any {
	if s := c.real.Load(); s != nil {
		return s.ctx.Value(key)
	}
	return c.parent.Value(key)
}

// Cancel releases the timer and the parent's registration, if Done
// started them; Err answers context.Canceled afterwards.
func (c *Context) Cancel() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.canceled.Store(true)
	if s := c.real.Load(); s != nil {
		s.cancel()
	}
}
