package analyze

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Progress draws a progress bar on a terminal. It stays silent for the
// first second, so that quick inputs never show one, and redraws at most
// five times a second. It is safe for concurrent use.
type Progress struct {
	mu      sync.Mutex
	out     io.Writer
	total   int64
	unit    string
	start   time.Time
	last    time.Time
	shown   bool
	now     func() time.Time
	Delay   time.Duration
	Disable bool
}

// NewProgress returns a bar towards total (bytes, or "todos"), or nil
// when out is not a terminal and force is false.
func NewProgress(out *os.File, total int64, unit string, force bool) *Progress {
	if !force && !IsTerminal(out) {
		return nil
	}
	return &Progress{out: out, total: total, unit: unit, start: time.Now(), now: time.Now, Delay: time.Second}
}

// IsTerminal reports whether f is a character device (a terminal).
func IsTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Set reports progress; a nil Progress ignores it.
func (p *Progress) Set(done int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if now.Sub(p.start) < p.Delay || now.Sub(p.last) < 200*time.Millisecond {
		return
	}
	p.last, p.shown = now, true
	const width = 30
	frac := 0.0
	if p.total > 0 {
		frac = min(1, float64(done)/float64(p.total))
	}
	n := int(frac * width)
	count := fmtInt(done)
	if p.unit == "bytes" {
		count = fmtBytes(done)
	}
	fmt.Fprintf(p.out, "\r[%s%s] %3.0f%% %s %s", strings.Repeat("#", n), strings.Repeat(" ", width-n), frac*100, count,
		now.Sub(p.start).Truncate(100*time.Millisecond))
}

// Done ends the bar's line if one was drawn.
func (p *Progress) Done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprintln(p.out)
	}
}
