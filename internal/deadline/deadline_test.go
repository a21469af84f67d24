package deadline

import (
	"context"
	"errors"
	"testing"
	"time"
)

type key struct{}

func TestErrWithoutDone(t *testing.T) {
	parent := context.WithValue(context.Background(), key{}, "v")
	var c Context
	c.Init(parent, time.Now().Add(time.Hour))
	if err := c.Err(); err != nil {
		t.Fatalf("Err before the deadline: %v", err)
	}
	if c.Value(key{}) != "v" {
		t.Error("a parent's value is lost")
	}
	c.Init(parent, time.Now().Add(-time.Second))
	if err := c.Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Err after the deadline: %v", err)
	}
	c.Cancel()
	if err := c.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Err after Cancel: %v", err)
	}
}

func TestParentDeadlineAndCancel(t *testing.T) {
	early := time.Now().Add(time.Minute)
	parent, cancel := context.WithDeadline(context.Background(), early)
	var c Context
	c.Init(parent, early.Add(time.Hour))
	if d, ok := c.Deadline(); !ok || !d.Equal(early) {
		t.Errorf("Deadline = %v, %v; want the parent's %v", d, ok, early)
	}
	cancel()
	if err := c.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("Err with the parent cancelled: %v", err)
	}
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("Done not closed with the parent cancelled")
	}
}

func TestDoneClosesAtTheDeadline(t *testing.T) {
	var c Context
	c.Init(context.Background(), time.Now().Add(20*time.Millisecond))
	defer c.Cancel()
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("Done not closed at the deadline")
	}
	if err := c.Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Err: %v", err)
	}
	if cause := context.Cause(&c); !errors.Is(cause, context.DeadlineExceeded) {
		t.Errorf("Cause: %v", cause)
	}
}

func TestCancelThenDone(t *testing.T) {
	var c Context
	c.Init(context.Background(), time.Now().Add(time.Hour))
	c.Cancel()
	if err := c.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("Err after Cancel: %v", err)
	}
	select {
	case <-c.Done():
	default:
		t.Fatal("Done after Cancel is not closed")
	}
	if err := c.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("Err after Cancel and Done: %v", err)
	}
}

// Done and Err from many goroutines agree with one another.
func TestConcurrentDone(t *testing.T) {
	var c Context
	c.Init(context.Background(), time.Now().Add(5*time.Millisecond))
	defer c.Cancel()
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			<-c.Done()
			errs <- c.Err()
		}()
	}
	for range 8 {
		if err := <-errs; !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Err: %v", err)
		}
	}
}
