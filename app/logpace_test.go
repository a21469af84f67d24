package app

import (
	"context"
	"sync"
	"testing"
	"time"
)

// fakeTimer is one wait of a logPacer: how long it asked for, and the
// channel the test fires it by.
type fakeTimer struct {
	d    time.Duration
	fire chan time.Time
}

// pacerUnderTest runs a logPacer whose waits the test fires by hand, and
// whose store commits when the test says so.
type pacerUnderTest struct {
	passes chan struct{}
	timers chan fakeTimer
	mu     sync.Mutex
	commit chan struct{}
}

func startPacer(t *testing.T, gap, every time.Duration, idle int) *pacerUnderTest {
	t.Helper()
	u := &pacerUnderTest{passes: make(chan struct{}, 16), timers: make(chan fakeTimer), commit: make(chan struct{})}
	p := &logPacer{
		pass: func(context.Context) { u.passes <- struct{}{} },
		changes: func() <-chan struct{} {
			u.mu.Lock()
			defer u.mu.Unlock()
			return u.commit
		},
		gap: gap, every: every, idle: idle, now: time.Now,
		after: func(d time.Duration) <-chan time.Time {
			c := make(chan time.Time, 1)
			u.timers <- fakeTimer{d, c}
			return c
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); p.run(ctx) }()
	t.Cleanup(func() {
		cancel()
		for {
			select {
			case <-done:
				return
			case <-u.timers: // a wait asked for while stopping
			}
		}
	})
	return u
}

func (u *pacerUnderTest) commitNow() {
	u.mu.Lock()
	defer u.mu.Unlock()
	close(u.commit)
	u.commit = make(chan struct{})
}

// pass waits for the pacer's next pass, generously.
func (u *pacerUnderTest) pass(t *testing.T, what string) {
	t.Helper()
	select {
	case <-u.passes:
	case <-time.After(30 * time.Second):
		t.Fatalf("no pass %s after 30 s", what)
	}
}

// wait returns the pacer's next wait.
func (u *pacerUnderTest) wait(t *testing.T) fakeTimer {
	t.Helper()
	select {
	case w := <-u.timers:
		return w
	case <-time.After(30 * time.Second):
		t.Fatal("the pacer asked for no wait after 30 s")
		return fakeTimer{}
	}
}

// noPass fails if a pass has run: called while the pacer is blocked in a
// wait the test holds, so any pass would already be in the channel.
func (u *pacerUnderTest) noPass(t *testing.T, when string) {
	t.Helper()
	select {
	case <-u.passes:
		t.Fatalf("a pass ran %s", when)
	default:
	}
}

// A commit starts a pass as soon as the gap since the last pass's start
// has passed, without waiting for the fallback period (which the test
// never lets end); a commit within the gap waits for it.
func TestLogPassSoonAfterACommit(t *testing.T) {
	const gap, every = 250 * time.Millisecond, time.Hour
	u := startPacer(t, gap, every, 30)
	u.pass(t, "at start")
	g := u.wait(t)
	if g.d > gap {
		t.Fatalf("waits %v after a pass, want at most the gap %v", g.d, gap)
	}
	u.commitNow()
	u.noPass(t, "within the gap")
	g.fire <- time.Now()
	if w := u.wait(t); w.d != every-gap {
		t.Fatalf("fallback period %v, want %v", w.d, every-gap)
	}
	u.pass(t, "after a commit")
}

// Without commits the pacer passes over the log for idle fallback
// periods, then passes all the same.
func TestLogPassFallback(t *testing.T) {
	const gap, every, idle = 250 * time.Millisecond, time.Second, 3
	u := startPacer(t, gap, every, idle)
	u.pass(t, "at start")
	u.wait(t).fire <- time.Now() // the gap
	w := u.wait(t)
	for range idle - 1 {
		w.fire <- time.Now()
		w = u.wait(t)
		u.noPass(t, "in a quiet period before the idle bound")
	}
	w.fire <- time.Now()
	u.pass(t, "after the idle bound")
}
