package backoff

import (
	"context"
	"testing"
	"time"
)

// Delays grow from Base, stay within [nominal/2, nominal], never pass Max,
// and differ from call to call.
func TestDelay(t *testing.T) {
	p := Policy{Base: 10 * time.Millisecond, Max: 160 * time.Millisecond}
	for n := range 40 {
		nominal := min(p.Base<<min(n, 30), p.Max)
		if n >= 30 {
			nominal = p.Max
		}
		seen := map[time.Duration]bool{}
		for range 50 {
			d := p.Delay(n)
			if d < nominal/2 || d > nominal {
				t.Fatalf("Delay(%d) = %v, want within [%v, %v]", n, d, nominal/2, nominal)
			}
			seen[d] = true
		}
		if len(seen) < 2 {
			t.Fatalf("Delay(%d) has no jitter: %v", n, seen)
		}
	}
}

func TestSleepEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if err := Sleep(ctx, time.Hour); err != context.Canceled {
		t.Fatalf("Sleep on a cancelled context: %v", err)
	}
	if time.Since(start) > time.Second {
		t.Fatal("Sleep outlived its context")
	}
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Fatal(err)
	}
}
