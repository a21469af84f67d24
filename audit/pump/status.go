package pump

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/health"
	"github.com/todoaudit/todo/store"
)

// The pump's states, as Status reports them.
const (
	// StateStarting: the pump has not read its checkpoint yet.
	StateStarting = "starting"
	// StateRunning: the pump is delivering changes, or waiting for some.
	StateRunning = "running"
	// StateRetrying: the pump's last attempt at some step failed (reading
	// its checkpoint or the feed, or delivering a batch); it retries with
	// backoff and the audit falls behind meanwhile.
	StateRetrying = "retrying"
	// StateStopped: the pump has shut down.
	StateStopped = "stopped"
)

// errStalled is what the pump reports to health while it retries.
var errStalled = todo.Errorf(todo.Unavailable, "the audit pump cannot make progress; it keeps retrying")

// monitor follows one running pump for Status. A nil monitor records
// nothing, so Drain shares the loop without reporting.
type monitor struct {
	mu       sync.Mutex
	started  bool      // the checkpoint has been read
	stopped  bool      // the loop has ended
	readErr  bool      // the last read of the checkpoint or the feed failed
	lastRead time.Time // the last successful read (or the start)
	failing  int       // batches whose last delivery failed
	oldest   time.Time // commit time of the oldest change in delivery
	// report, when set, hears errStalled when the pump starts retrying
	// and nil when it makes progress again.
	report   func(error)
	reported bool
}

func (m *monitor) update(f func(m *monitor)) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	f(m)
	if stalled := m.readErr || m.failing > 0; stalled != m.reported && m.report != nil {
		m.reported = stalled
		if stalled {
			m.report(errStalled)
		} else {
			m.report(nil)
		}
	}
}

// read records the outcome of a read of the checkpoint or the feed.
func (m *monitor) read(err error) {
	m.update(func(m *monitor) {
		m.readErr = err != nil
		if err == nil {
			m.started, m.lastRead = true, time.Now()
		}
	})
}

// status reports the monitored pump's state at now.
func (m *monitor) status(now time.Time) health.Audit {
	m.mu.Lock()
	defer m.mu.Unlock()
	var lag time.Duration
	if m.readErr || !m.started {
		lag = now.Sub(m.lastRead)
	}
	if !m.oldest.IsZero() {
		lag = max(lag, now.Sub(m.oldest))
	}
	secs := max(lag, 0).Round(time.Millisecond).Seconds()
	s := health.Audit{State: StateRunning, LagSeconds: &secs}
	switch {
	case m.stopped:
		s.State = StateStopped
	case m.readErr || m.failing > 0:
		s.State = StateRetrying
	case !m.started:
		s.State = StateStarting
	}
	return s
}

// commitTime is when the first of items was written, from its _ts; now
// when it has none.
func commitTime(items []store.Item, now time.Time) time.Time {
	var sys struct {
		TS int64 `json:"_ts"`
	}
	if len(items) == 0 || json.Unmarshal(items[0].Body, &sys) != nil || sys.TS == 0 {
		return now
	}
	return time.Unix(sys.TS, 0)
}
