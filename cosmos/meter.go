package cosmos

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/todoaudit/todo/store"
)

// meter counts the HTTP requests one store call causes and sums their
// request charges. The meterPolicy finds it in the request's context.
type meter struct {
	requests atomic.Int64
	charge   atomic.Uint64 // float64 bits
}

type meterKey struct{}

// withMeter returns a context that meters the requests made with it.
func withMeter(ctx context.Context) (context.Context, *meter) {
	m := &meter{}
	return context.WithValue(ctx, meterKey{}, m), m
}

func (m *meter) add(resp *http.Response) {
	m.requests.Add(1)
	if resp == nil {
		return
	}
	ru, err := strconv.ParseFloat(resp.Header.Get("x-ms-request-charge"), 64)
	if err != nil || ru <= 0 {
		return
	}
	for {
		old := m.charge.Load()
		if m.charge.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+ru)) {
			return
		}
	}
}

// cost reports what was metered so far.
func (m *meter) cost(scope store.Scope) store.Cost {
	return store.Cost{
		Scope:    scope,
		Charge:   math.Float64frombits(m.charge.Load()),
		Requests: int(m.requests.Load()),
	}
}

// meterPolicy runs once per HTTP attempt (it is a per-retry policy, after
// the SDK's own retry loops), so retried requests are counted too.
type meterPolicy struct{}

func (meterPolicy) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if m, ok := req.Raw().Context().Value(meterKey{}).(*meter); ok {
		m.add(resp)
	}
	return resp, err
}
