package bolt_test

import (
	"sync"
	"testing"
	"time"

	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/store"
	"github.com/todoaudit/todo/store/storetest"
)

// clock is a movable clock shared by the stores a test opens.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestConformance(t *testing.T) {
	clk := &clock{now: time.Now()}
	storetest.Run(t, storetest.Harness{
		Open: func(t testing.TB, dir string, specs []store.ContainerSpec) store.Store {
			s, err := bolt.Open(dir, specs, &bolt.Options{Now: clk.Now})
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		Advance: clk.Advance,
		Durable: true,
	})
}
