package authtest

import (
	"sync"
	"testing"
	"time"
)

// Clock is a fake clock for the entra mode (auth.Options.Clock): time stands
// still until the test advances it, and the test can wait until the handler
// waits on it, so that a back-off or a rate limit takes no real time.
type Clock struct {
	mu      sync.Mutex
	now     time.Time
	timers  map[*timer]bool // running
	started int
	// changed is closed, and replaced, whenever a timer starts.
	changed chan struct{}
}

type timer struct {
	at time.Time
	c  chan time.Time
}

// NewClock returns a clock that reads now until advanced.
func NewClock(now time.Time) *Clock {
	return &Clock{now: now, timers: map[*timer]bool{}, changed: make(chan struct{})}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Timer returns a channel that receives once the clock has been advanced by
// d, and a function that releases the timer.
func (c *Clock) Timer(d time.Duration) (<-chan time.Time, func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.started++
	close(c.changed)
	c.changed = make(chan struct{})
	t := &timer{at: c.now.Add(d), c: make(chan time.Time, 1)}
	if d <= 0 {
		t.c <- c.now
		return t.c, func() {}
	}
	c.timers[t] = true
	return t.c, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.timers, t)
	}
}

// Advance moves the clock on by d and fires the timers due by then.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	for t := range c.timers {
		if !t.at.After(c.now) {
			t.c <- c.now
			delete(c.timers, t)
		}
	}
}

// Started returns how many timers have been started so far.
func (c *Clock) Started() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.started
}

// WaitStarted waits until n timers have been started in all, so that the
// test advances the clock only once whatever it expects to wait on the
// clock does. It fails t after ten seconds.
func (c *Clock) WaitStarted(t testing.TB, n int) {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		started, changed := c.started, c.changed
		c.mu.Unlock()
		if started >= n {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("%d timers started on the clock after 10 s, want %d", started, n)
		}
	}
}
