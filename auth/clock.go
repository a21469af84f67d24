package auth

import (
	"context"
	"time"
)

// Clock is the time the entra mode reads and waits on: the system clock,
// or a fake one a test moves on (authtest.Clock).
type Clock interface {
	Now() time.Time
	// Timer returns a channel that receives once d has passed, and a
	// function that releases the timer early.
	Timer(d time.Duration) (<-chan time.Time, func())
}

// systemClock is the real time.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) Timer(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTimer(d)
	return t.C, func() { t.Stop() }
}

// sleep waits d on clock unless ctx ends first; it reports whether d
// passed.
func sleep(ctx context.Context, clock Clock, d time.Duration) bool {
	c, stop := clock.Timer(d)
	defer stop()
	select {
	case <-ctx.Done():
		return false
	case <-c:
		return true
	}
}
