package cosmos_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/todoaudit/todo/app"
	"github.com/todoaudit/todo/app/apitest"
	"github.com/todoaudit/todo/cosmos"
	"github.com/todoaudit/todo/store"
)

// Erasure on the Cosmos DB adapter over the wire: the API suite's erasure
// cases and the forms of its pages of records, with reconcile and the log's integrator run as their timers
// would; the scan reads every document of every container.
func TestErasureOnCosmos(t *testing.T) {
	var st store.Store
	a := apitest.Start(t, logSettings(t, "root"), &app.Options{
		Cosmos: func(c *cosmos.Config) { c.ClientOptions = cosmos.WireClientOptions() },
		Wrap:   func(s store.Store) store.Store { st = s; return s },
	})
	ctx := context.Background()
	scan := func() []byte {
		var all bytes.Buffer
		for _, name := range []string{"todos", "audit", "leases"} {
			c, err := st.Container(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			q := store.Query{PageSize: store.MaxPageSize}
			for {
				p, err := c.Query(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				for _, it := range p.Items {
					all.Write(it.Body)
				}
				if q.Continuation = p.Continuation; q.Continuation == "" {
					break
				}
			}
		}
		return all.Bytes()
	}
	settle := func() {
		if _, err := a.Reconcile(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := a.IntegrateLog(ctx); err != nil {
			t.Fatal(err)
		}
	}
	c := &apitest.Client{T: t, Base: "http://" + a.Addr(), User: "root"}
	apitest.Erasure(t, c, "category", scan, settle, false)
	// The forms of history and activity pages, with an erasure of their own.
	apitest.HistoryForms(t, c, settle)
}
