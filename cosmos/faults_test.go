package cosmos_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/todoaudit/todo/app"
	"github.com/todoaudit/todo/app/apitest"
	"github.com/todoaudit/todo/audit/reconcile"
	"github.com/todoaudit/todo/cosmos"
)

// fault is what the fault-injecting transport does to every request.
type fault int

const (
	healthy     fault = iota
	down              // connection refused: nothing reaches the server
	hanging           // the request is sent nowhere and never answered
	throttled         // 429 with a retry-after hint
	unavailable       // 503
	gone              // 410
	reset             // the server does the work; the answer breaks off mid-body
)

var faultNames = [...]string{"healthy", "down", "hanging", "429 burst", "503", "410", "reset mid-body"}

func (f fault) String() string { return faultNames[f] }

// faults sits between the Cosmos DB adapter and the server and injects the
// current fault into every request.
type faults struct {
	next policy.Transporter
	now  atomic.Int32
}

func (f *faults) set(x fault) { f.now.Store(int32(x)) }

func (f *faults) Do(r *http.Request) (*http.Response, error) {
	switch fault(f.now.Load()) {
	case down:
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	case hanging:
		<-r.Context().Done()
		return nil, r.Context().Err()
	case throttled:
		return cosmos.Response(r, http.StatusTooManyRequests, `{"code":"TooManyRequests","message":"Request rate is large"}`,
			"x-ms-retry-after-ms", "100", "x-ms-substatus", "3200"), nil
	case unavailable:
		return cosmos.Response(r, http.StatusServiceUnavailable, `{"code":"ServiceUnavailable","message":"Service is currently unavailable"}`), nil
	case gone:
		return cosmos.Response(r, http.StatusGone, `{"code":"Gone","message":"The requested resource is no longer available at the server"}`, "x-ms-substatus", "1002"), nil
	case reset:
		resp, err := f.next.Do(r)
		if err != nil {
			return resp, err
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body[:len(body)/2]), resetReader{}))
		return resp, nil
	}
	return f.next.Do(r)
}

type resetReader struct{}

func (resetReader) Read([]byte) (int, error) {
	return 0, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
}

// outcome is one answered request of the load.
type outcome struct {
	fault   fault
	at      time.Time // when it was sent
	status  int
	took    time.Duration
	problem bool // problem+json with Retry-After, as a 503 must be
	err     error
}

// loadWorker creates a few todos and then updates them, unconditionally,
// recording each acknowledged version, until stop is closed.
func loadWorker(base, user string, client *http.Client, f *faults, stop <-chan struct{}, acked map[string]int, out chan<- outcome) {
	n := 0
	for {
		select {
		case <-stop:
			return
		default:
		}
		ids := make([]string, 0, len(acked))
		for id := range acked {
			ids = append(ids, id)
		}
		method, url := http.MethodPost, base+"/api/todos"
		if len(ids) >= 3 {
			method, url = http.MethodPut, base+"/api/todos/"+ids[n%len(ids)]
		}
		n++
		req, _ := http.NewRequest(method, url, strings.NewReader(fmt.Sprintf(`{"category":"work","title":"%s-%d"}`, user, n)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-User-Id", user)
		during := fault(f.now.Load())
		start := time.Now()
		resp, err := client.Do(req)
		o := outcome{fault: during, at: start, took: time.Since(start), err: err}
		if err == nil {
			var body struct {
				ID      string `json:"id"`
				Version int    `json:"version"`
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			o.status = resp.StatusCode
			o.problem = resp.Header.Get("Content-Type") == "application/problem+json" && resp.Header.Get("Retry-After") != ""
			if resp.StatusCode/100 == 2 && json.Unmarshal(b, &body) == nil && body.ID != "" {
				acked[body.ID] = max(acked[body.ID], body.Version)
			}
		}
		out <- o
	}
}

// Under concurrent load, the Cosmos DB endpoint goes down, hangs, throttles
// in bursts, answers 503 and 410, and breaks off answers mid-body. Every
// request is answered within STORE_TIMEOUT + 1 s (success or 503
// problem+json with Retry-After), /api/health reports the stall and the
// recovery, no acknowledged write is lost, and once the audit is reconciled
// every version of every todo is in its history exactly once.
func TestFaultsUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("a timed fault schedule")
	}
	endpoint := cosmos.WireEndpoint(t)
	database := cosmos.UniqueDatabase()
	t.Cleanup(func() { cosmos.DropDatabase(endpoint, database) })
	const storeTimeout = 2 * time.Second
	f := &faults{}
	a := apitest.Start(t, map[string]string{
		"STORE": "cosmos", "COSMOS_ENDPOINT": endpoint, "COSMOS_KEY": cosmos.EmulatorKey,
		"COSMOS_DATABASE": database, "PARTITION_SCHEME": "hierarchical", "AUDIT_PUMP": "off",
		"STORE_TIMEOUT": storeTimeout.String(),
	}, &app.Options{Cosmos: func(c *cosmos.Config) {
		c.ClientOptions = cosmos.WireClientOptions()
		f.next = c.ClientOptions.Transport
		c.ClientOptions.Transport = f
	}})
	base := "http://" + a.Addr()
	// The client gives up well after the bound, so that a request over it
	// is measured rather than left hanging.
	client := &http.Client{Timeout: storeTimeout + 10*time.Second}

	stop := make(chan struct{})
	results := make(chan outcome, 1024)
	const workers = 6
	acked := make([]map[string]int, workers)
	var wg sync.WaitGroup
	for i := range workers {
		acked[i] = map[string]int{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			loadWorker(base, fmt.Sprintf("user%d", i), client, f, stop, acked[i], results)
		}()
	}
	var (
		mu       sync.Mutex
		all      []outcome
		answered = map[fault]int{} // answers to the requests sent under each fault
		newestOK time.Time         // when the newest request that succeeded was sent
	)
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for o := range results {
			mu.Lock()
			all = append(all, o)
			answered[o.fault]++
			if o.status/100 == 2 && o.at.After(newestOK) {
				newestOK = o.at
			}
			mu.Unlock()
		}
	}()
	// waitUntil waits for what the load's answers show, polling them.
	waitUntil := func(what string, cond func() bool) {
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			mu.Lock()
			ok := cond()
			mu.Unlock()
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %s within 20s", what)
			}
		}
	}

	healthState := func() (int, string) {
		resp, err := client.Get(base + "/api/health")
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	// waitHealth polls /api/health until it answers status, and says how
	// long that took.
	waitHealth := func(status int, within time.Duration) time.Duration {
		start := time.Now()
		for {
			code, body := healthState()
			if code == status {
				return time.Since(start)
			}
			if time.Since(start) > within {
				t.Errorf("/api/health still %d %s after %v, want %d", code, body, within, status)
				return time.Since(start)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	waitUntil("load", func() bool { return answered[healthy] >= 2*workers })
	healed := map[fault]time.Time{}
	for _, x := range []fault{down, hanging, throttled, unavailable, gone, reset} {
		f.set(x)
		if x == hanging {
			d := waitHealth(http.StatusServiceUnavailable, 15*time.Second)
			_, body := healthState()
			t.Logf("%s: /api/health 503 after %v: %s", x, d.Round(100*time.Millisecond), strings.TrimSpace(body))
			if !strings.Contains(body, `"status":"degraded"`) {
				t.Errorf("health while the store hangs: %s", body)
			}
		} else {
			waitUntil(x.String()+" answers", func() bool { return answered[x] >= workers })
		}
		f.set(healthy)
		healed[x] = time.Now()
		if x == hanging {
			t.Logf("%s: /api/health 200 again %v after recovery", x, waitHealth(http.StatusOK, 15*time.Second).Round(100*time.Millisecond))
		}
		waitUntil("success after "+x.String(), func() bool { return newestOK.After(healed[x]) })
	}
	close(stop)
	wg.Wait()
	close(results)
	<-collected

	// Every request was answered in time, with success or a 503 problem.
	bound := storeTimeout + time.Second
	worst := map[fault]time.Duration{}
	count := map[fault]map[int]int{}
	for _, o := range all {
		if count[o.fault] == nil {
			count[o.fault] = map[int]int{}
		}
		count[o.fault][o.status]++
		worst[o.fault] = max(worst[o.fault], o.took)
		switch {
		case o.err != nil:
			t.Errorf("%s: no answer after %v: %v", o.fault, o.took, o.err)
		case o.took > bound:
			t.Errorf("%s: answered %d after %v, over STORE_TIMEOUT + 1s", o.fault, o.status, o.took)
		case o.status == http.StatusServiceUnavailable && !o.problem:
			t.Errorf("%s: 503 without problem+json and Retry-After", o.fault)
		case o.status != http.StatusOK && o.status != http.StatusCreated && o.status != http.StatusServiceUnavailable:
			t.Errorf("%s: status %d", o.fault, o.status)
		}
	}
	// Recovery: from the end of a fault to the first success answered
	// after it.
	recovered := map[fault]time.Duration{}
	for _, o := range all {
		for x, at := range healed {
			if done := o.at.Add(o.took); o.status/100 == 2 && done.After(at) && (recovered[x] == 0 || done.Sub(at) < recovered[x]) {
				recovered[x] = done.Sub(at)
			}
		}
	}
	for x := healthy; x <= reset; x++ {
		t.Logf("%-15s requests by status %v, slowest answer %v, first success %v after it ended",
			x, count[x], worst[x].Round(time.Millisecond), recovered[x].Round(time.Millisecond))
	}

	// The audit catches up from the version documents (the Reconcile
	// timer's job: this server's change feed never advances).
	reconcileAll(t, endpoint, database)
	total := 0
	for i, ack := range acked {
		c := &apitest.Client{T: t, Base: base, User: fmt.Sprintf("user%d", i)}
		for id, v := range ack {
			total++
			cur := apitest.Want(t, c.Do("GET", "/api/todos/"+id, nil), 200).JSON(t)
			now := int(cur["version"].(float64))
			if now < v {
				t.Errorf("%s: version %d, but version %d was acknowledged", id, now, v)
			}
			items, complete := history(t, c, id)
			seen := map[int]int{}
			for _, it := range items {
				seen[int(it.(map[string]any)["version"].(float64))]++
			}
			for n := 1; n <= now; n++ {
				if seen[n] != 1 {
					t.Errorf("%s: version %d is in the history %d times (history of %d items, todo at version %d)", id, n, seen[n], len(items), now)
				}
			}
			if len(items) != now || !complete {
				t.Errorf("%s: history of %d items, complete %v; todo at version %d", id, len(items), complete, now)
			}
		}
	}
	t.Logf("%d requests, %d todos with acknowledged writes", len(all), total)
	if total == 0 {
		t.Fatal("no write was acknowledged")
	}
}

// history pages through the whole history of id.
func history(t *testing.T, c *apitest.Client, id string) (items []any, complete bool) {
	complete = true
	next := ""
	for {
		p := "/api/todos/" + id + "/history?pageSize=100"
		if next != "" {
			p += "&continuation=" + next
		}
		page := apitest.Want(t, c.Do("GET", p, nil), 200).JSON(t)
		items = append(items, page["items"].([]any)...)
		complete = complete && page["complete"] == true
		if next, _ = page["continuation"].(string); next == "" {
			return items, complete
		}
	}
}

// reconcileAll refills the audit container from the version documents.
func reconcileAll(t *testing.T, endpoint, database string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := cosmos.Open(ctx, cosmos.Config{Endpoint: endpoint, Key: cosmos.EmulatorKey, Database: database, ClientOptions: cosmos.WireClientOptions()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	todos, err := st.Container(ctx, "todos")
	if err != nil {
		t.Fatal(err)
	}
	auditC, err := st.Container(ctx, "audit")
	if err != nil {
		t.Fatal(err)
	}
	leases, err := st.Container(ctx, "leases")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&reconcile.Reconciler{Todos: todos, Audit: auditC, Leases: leases, Log: slog.New(slog.DiscardHandler)}).Run(ctx); err != nil {
		t.Fatal(err)
	}
}
