package store

import (
	"context"
	"sync"
)

// Meter sums the cost of the store calls made with a context that carries
// it: the stores charge every call to the meter they find, so callers in
// between (repository, service) never pass costs along by hand. It is safe
// for concurrent use.
type Meter struct {
	mu     sync.Mutex
	cost   Cost
	parent *Meter
}

type meterKey struct{}

// meterContext carries a Meter: what context.WithValue would do, in one
// allocation instead of two.
type meterContext struct {
	context.Context
	m Meter
}

func (c *meterContext) Value(key any) any {
	if key == (meterKey{}) {
		return &c.m
	}
	return c.Context.Value(key)
}

// WithMeter returns a context whose store calls are charged to a new Meter.
// A meter that ctx already carries is charged too, so a decorator can
// measure one call without hiding it from the request's meter.
func WithMeter(ctx context.Context) (context.Context, *Meter) {
	parent, _ := ctx.Value(meterKey{}).(*Meter)
	c := &meterContext{Context: ctx, m: Meter{parent: parent}}
	return c, &c.m
}

// Charge adds c to the meter ctx carries, if any. Stores call it once or
// more per call: the charges add up and the scope becomes the widest.
func Charge(ctx context.Context, c Cost) {
	m, _ := ctx.Value(meterKey{}).(*Meter)
	for ; m != nil; m = m.parent {
		m.mu.Lock()
		m.cost.Add(c)
		m.mu.Unlock()
	}
}

// Cost is what the calls charged so far.
func (m *Meter) Cost() Cost {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cost
}

// Touched reports whether the calls made at least one request that read or
// wrote data, so that a cost is worth reporting.
func (c Cost) Touched() bool { return c.Requests > 0 && c.Scope.Kind != 0 }
