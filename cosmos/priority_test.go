package cosmos_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/todoaudit/todo/app"
	"github.com/todoaudit/todo/app/apitest"
	"github.com/todoaudit/todo/cmd/partition-analyzer/analyze"
	"github.com/todoaudit/todo/cosmos"
)

// priorityRecorder counts, per phase of a test, the document requests that
// reach the server with and without the low-priority header. Requests for
// the account, databases and containers (opening, the health probe) carry
// no user or background data and are not counted.
type priorityRecorder struct {
	next policy.Transporter

	mu    sync.Mutex
	phase string
	low   map[string]int
	high  map[string]int
	first map[string]string // phase → an example request, for messages
}

func (p *priorityRecorder) setPhase(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.phase = name
}

func (p *priorityRecorder) Do(r *http.Request) (*http.Response, error) {
	if strings.Contains(r.URL.Path, "/docs") {
		p.mu.Lock()
		level := r.Header.Values("x-ms-cosmos-priority-level")
		key := p.phase + "/" + fmt.Sprint(level)
		switch {
		case len(level) == 1 && level[0] == "Low":
			p.low[p.phase]++
		case len(level) == 0:
			p.high[p.phase]++
		default:
			p.low[p.phase+" (malformed)"]++
		}
		if _, ok := p.first[key]; !ok {
			p.first[key] = r.Method + " " + r.URL.Path
		}
		p.mu.Unlock()
	}
	return p.next.Do(r)
}

// Background work (the sweep of interrupted moves at start-up, a Reconcile
// invocation, the analyzer's export) reaches Cosmos DB at Low priority on
// every document request; user requests never carry the header.
func TestBackgroundRequestsAtLowPriority(t *testing.T) {
	endpoint := cosmos.WireEndpoint(t)
	database := cosmos.UniqueDatabase()
	t.Cleanup(func() { cosmos.DropDatabase(endpoint, database) })
	rec := &priorityRecorder{phase: "start", low: map[string]int{}, high: map[string]int{}, first: map[string]string{}}
	wire := func(c *cosmos.Config) {
		c.ClientOptions = cosmos.WireClientOptions()
		rec.next = c.ClientOptions.Transport
		c.ClientOptions.Transport = rec
	}
	// No pump and no log integrator: every background pass below is
	// started by the test, so the phases do not overlap.
	a := apitest.Start(t, map[string]string{
		"STORE": "cosmos", "COSMOS_ENDPOINT": endpoint, "COSMOS_KEY": cosmos.EmulatorKey,
		"COSMOS_DATABASE": database, "PARTITION_SCHEME": "category", "AUDIT_PUMP": "off", "TRANSPARENCY_LOG": "off",
	}, &app.Options{Cosmos: wire})

	rec.setPhase("users")
	c := &apitest.Client{T: t, Base: "http://" + a.Addr(), User: "alice"}
	apitest.CRUD(t, c, "category")
	apitest.Gone(t, c.As("bob"), "category")

	rec.setPhase("reconcile")
	if _, err := a.Reconcile(t.Context()); err != nil {
		t.Fatal(err)
	}

	rec.setPhase("export")
	cfg := cosmos.Config{Endpoint: endpoint, Key: cosmos.EmulatorKey, Database: database}
	wire(&cfg)
	st, err := cosmos.Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	todos, err := st.Container(t.Context(), "todos")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := analyze.Export(t.Context(), todos, io.Discard); err != nil || n == 0 {
		t.Fatalf("export: %d documents, %v", n, err)
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, phase := range []string{"start", "reconcile", "export"} {
		if rec.low[phase] == 0 || rec.high[phase] != 0 {
			t.Errorf("%s (background): %d document requests at Low priority, %d without it (e.g. %s); want all Low",
				phase, rec.low[phase], rec.high[phase], rec.first[phase+"/[]"])
		}
	}
	if rec.high["users"] == 0 || rec.low["users"] != 0 {
		t.Errorf("users: %d document requests without a priority, %d at Low (e.g. %s); want none Low",
			rec.high["users"], rec.low["users"], rec.first["users/[Low]"])
	}
	for phase, n := range rec.low {
		if strings.HasSuffix(phase, "(malformed)") {
			t.Errorf("%s: %d requests with a repeated or unknown priority header", phase, n)
		}
	}
	t.Logf("document requests at Low priority by phase %v, without a priority %v", rec.low, rec.high)
}
