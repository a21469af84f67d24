// Package backoff spaces out retries: capped exponential delays with
// jitter, so that callers retrying the same failure spread out instead of
// retrying in lockstep.
package backoff

import (
	"context"
	"math/rand/v2"
	"time"
)

// Policy is a capped exponential back-off.
type Policy struct {
	Base time.Duration // the delay before the first retry, before jitter
	Max  time.Duration // no delay exceeds it
}

// Delay returns the wait before retry attempt n (0 is the first retry):
// Base doubled n times, capped at Max, of which a random half is taken
// off ("equal jitter": never less than half the nominal delay).
func (p Policy) Delay(n int) time.Duration {
	d := p.Max
	if n < 30 {
		d = min(p.Base<<n, p.Max)
	}
	if d <= 1 {
		return d
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// Sleep waits d or until ctx ends, and reports ctx's error in that case.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
