package store

import (
	"context"
	"sync"

	"github.com/todoaudit/todo/internal/ctxvalue"
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

// MeterContext is a context carrying a Meter, in one allocation with it
// (ctxvalue.Node). WithMeter allocates one; a caller that starts several
// such contexts for each request can hold them in one allocation and Init
// each.
type MeterContext struct {
	ctxvalue.Node[meterKey, Meter]
}

// Init makes the zero c a child of parent whose store calls are charged to
// the Meter it returns. A meter that parent already carries is charged
// too, so a decorator can measure one call without hiding it from the
// request's meter.
func (c *MeterContext) Init(parent context.Context) *Meter {
	c.Context = parent
	c.V.parent = ctxvalue.Get[meterKey, Meter](parent)
	return &c.V
}

// WithMeter returns a context whose store calls are charged to a new Meter,
// as MeterContext.Init does.
func WithMeter(ctx context.Context) (context.Context, *Meter) {
	c := new(MeterContext)
	return c, c.Init(ctx)
}

// Charge adds c to the meter ctx carries, if any. Stores call it once or
// more per call: the charges add up and the scope becomes the widest.
func Charge(ctx context.Context, c Cost) {
	for m := ctxvalue.Get[meterKey, Meter](ctx); m != nil; m = m.parent {
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
