package app

import (
	"context"
	"time"
)

// logPacer runs the standalone integrator's passes: one soon after each
// commit of the store (the audit records a write commits), but never
// sooner than gap after the previous pass began, so that the writes of
// that time share one signed checkpoint and signing costs at most one
// signature every gap. Where the store does not tell of its commits it
// passes every period of every; where it does, a pass waits for a commit,
// or for idle such periods in a row without one.
type logPacer struct {
	pass func(context.Context)
	// changes returns a channel closed by the store's next commit; nil
	// when the store does not tell of them.
	changes func() <-chan struct{}
	gap     time.Duration
	every   time.Duration
	idle    int
	// after and now are time.After and time.Now, but in tests.
	after func(time.Duration) <-chan time.Time
	now   func() time.Time
}

// run passes until ctx ends.
func (p *logPacer) run(ctx context.Context) {
	for {
		var changed <-chan struct{} // closed by a commit during or after the pass
		if p.changes != nil {
			changed = p.changes()
		}
		started := p.now()
		p.pass(ctx)
		select {
		case <-ctx.Done():
			return
		case <-p.after(p.gap - p.now().Sub(started)):
		}
	wait:
		for quiet := 1; ; quiet++ {
			select {
			case <-ctx.Done():
				return
			case <-changed:
				break wait
			case <-p.after(max(p.every-p.gap, p.gap)):
				if changed == nil || quiet >= p.idle {
					break wait
				}
			}
		}
	}
}
