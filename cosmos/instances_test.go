package cosmos_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/todoaudit/todo/auth"
	"github.com/todoaudit/todo/auth/authtest"
	"github.com/todoaudit/todo/cosmos"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/store"
)

// Under Flex Consumption the handler runs on many instances against one
// Cosmos DB account, and the host's Cosmos DB trigger hands each lease of
// the todo container's change feed to one instance at a time, moving
// leases between instances as they come and go. This test runs three
// handler processes in host mode against the Cosmos-protocol test server,
// with a stand-in for the host's trigger (see leaseFeed), under creates,
// updates of the same todos, moves and rollbacks from many clients spread
// over the instances, and kills one instance with SIGKILL half way. Then no
// acknowledged write is lost, no history holds a version twice or misses
// one, every chain verifies, every todo is listed exactly once, and under
// the synthetic scheme every todo stays within its user's buckets.
func TestManyInstances(t *testing.T) {
	if testing.Short() {
		t.Skip("three handler processes under load")
	}
	endpoint := cosmos.WireProxy(t)
	bin := filepath.Join(t.TempDir(), "handler")
	build := exec.Command("go", "build", "-o", bin, "../handler")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the handler: %v\n%s", err, out)
	}
	for _, scheme := range []string{partition.Category, partition.Synthetic} {
		t.Run(scheme, func(t *testing.T) { runInstances(t, bin, endpoint, scheme) })
	}
}

const (
	instanceCount = 3
	leaseCount    = 4
	clientCount   = 8
	loadFor       = 6 * time.Second
	buckets       = 4
)

var users = []string{"alice", "bob"}

func runInstances(t *testing.T, bin, endpoint, scheme string) {
	database := cosmos.UniqueDatabase()
	t.Cleanup(func() { cosmos.DropDatabase(endpoint, database) })
	specs, err := partition.Containers(scheme, partition.DefaultContainerNames)
	if err != nil {
		t.Fatal(err)
	}
	// The test's own client: the host's view of the containers, for the
	// stand-in trigger and its output binding, and to check the end state.
	st, err := cosmos.Open(t.Context(), cosmos.Config{Endpoint: endpoint, Key: cosmos.EmulatorKey, Database: database, Containers: specs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	todos, _ := st.Container(t.Context(), specs[0].Name)
	audit, _ := st.Container(t.Context(), specs[1].Name)

	insts := make([]*instance, instanceCount)
	// One data directory: the first instance makes the log's signing key
	// there, the others sign with it.
	dataDir := t.TempDir()
	for i := range insts {
		insts[i] = startInstance(t, bin, "DATA_DIR="+dataDir, "STORE=cosmos", "COSMOS_ENDPOINT="+endpoint, "COSMOS_KEY="+cosmos.EmulatorKey,
			"COSMOS_DATABASE="+database, "PARTITION_SCHEME="+scheme, "SYNTHETIC_BUCKETS="+strconv.Itoa(buckets),
			"AUTH_MODE=easyauth", "STORE_TIMEOUT=5s", "LOG_LEVEL=error")
	}
	feed := &leaseFeed{todos: todos, audit: audit, insts: insts, delivered: map[string]string{}, sent: map[string]string{}}
	for l := range feed.owner {
		feed.owner[l] = l % instanceCount
	}
	ctx, stopFeed := context.WithCancel(context.Background())
	feedDone := make(chan struct{})
	go func() { defer close(feedDone); feed.run(ctx) }()

	// The load: clients spread over the live instances, as the platform's
	// front end spreads requests.
	l := &load{scheme: scheme, insts: insts, acked: map[string][]int64{}, pool: map[string][]string{}, category: map[string]string{}}
	deadline := time.Now().Add(loadFor)
	var wg sync.WaitGroup
	for c := range clientCount {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rnd := rand.New(rand.NewPCG(uint64(c), 7))
			for time.Now().Before(deadline) {
				l.step(rnd, users[c%len(users)])
			}
		}()
	}
	// Half way: one instance is killed; its leases expire and move to the
	// others, which deliver again from the last checkpoint.
	time.Sleep(loadFor / 2)
	victim := insts[instanceCount-1]
	victim.kill()
	feed.failOver(instanceCount - 1)
	wg.Wait()
	if !feed.drain(30 * time.Second) {
		t.Fatalf("the stand-in trigger did not catch up: %s", feed.lastErr())
	}
	stopFeed()
	<-feedDone

	live := insts[0]
	versions := 0
	for id, acked := range l.acked {
		user := l.owner(id)
		items, complete := live.history(t, user, id)
		seen := map[int64]bool{}
		for i, it := range items {
			v := int64(it["version"].(float64))
			if seen[v] {
				t.Errorf("%s: version %d twice in its history", id, v)
			}
			seen[v] = true
			if v != int64(i+1) {
				t.Errorf("%s: history item %d is version %d", id, i, v)
			}
		}
		versions += len(items)
		if !complete {
			t.Errorf("%s: history incomplete", id)
		}
		for _, v := range acked {
			if !seen[v] {
				t.Errorf("%s: acknowledged version %d is not in its history", id, v)
			}
		}
		if ok, body := live.verify(t, user, id); !ok {
			t.Errorf("%s: chain does not verify: %s", id, body)
		}
	}
	// Every live todo is listed exactly once, and is where its scheme puts
	// it. The test server ignores the partition key of a query, so the
	// synthetic scheme's bucket fan-out cannot be listed over it; there
	// the buckets are checked on the stored documents.
	stored := storedTodos(t, todos)
	for _, user := range users {
		want := stored[user]
		if scheme == partition.Synthetic {
			for id, pk := range want {
				n, err := strconv.Atoi(strings.TrimPrefix(pk, user+"-"))
				if err != nil || n < 0 || n >= buckets || pk != partition.Bucket(user, n) {
					t.Errorf("%s: partition key %q is not one of %s's %d buckets", id, pk, user, buckets)
				}
			}
			continue
		}
		listed := live.list(t, user)
		counts := map[string]int{}
		for _, id := range listed {
			counts[id]++
		}
		for id, n := range counts {
			if n != 1 {
				t.Errorf("%s listed %d times", id, n)
			}
			if _, ok := want[id]; !ok {
				t.Errorf("%s listed but not stored as a live todo of %s", id, user)
			}
		}
		for id := range want {
			if counts[id] == 0 {
				t.Errorf("%s is stored but not listed", id)
			}
		}
	}
	t.Logf("%s: %d requests, %d acknowledged writes on %d todos, %d versions audited, %d batches delivered (%d holding changes sent before, after a lease moved or a delivery failed), 1 instance killed",
		scheme, l.requests.Load(), l.writes.Load(), len(l.acked), versions, feed.batches.Load(), feed.redelivered.Load())
	if l.writes.Load() < 50 {
		t.Errorf("only %d writes acknowledged: the load did not run", l.writes.Load())
	}
}

// instance is one handler process in host mode.
type instance struct {
	cmd    *exec.Cmd
	base   string
	dead   atomic.Bool
	stderr bytes.Buffer
}

func startInstance(t *testing.T, bin string, env ...string) *instance {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	_ = ln.Close()
	in := &instance{base: "http://127.0.0.1:" + port}
	in.cmd = exec.Command(bin)
	in.cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "FUNCTIONS_CUSTOMHANDLER_PORT=" + port, "LISTEN_FDS=1"}, env...)
	in.cmd.ExtraFiles = []*os.File{f}
	in.cmd.Stderr = &in.stderr
	if err := in.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	t.Cleanup(in.kill)
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get(in.base + "/api/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return in
			}
		}
		if time.Since(start) > 20*time.Second {
			t.Fatalf("instance did not become healthy: %s", in.stderr.String())
		}
	}
}

func (in *instance) kill() {
	if in.dead.Swap(true) {
		return
	}
	_ = in.cmd.Process.Kill()
	_ = in.cmd.Wait()
}

var client = &http.Client{Timeout: 15 * time.Second}

// do sends one API request as user, as App Service Authentication
// forwards it.
func (in *instance) do(method, path, user, body string) (int, map[string]any, error) {
	req, err := http.NewRequest(method, in.base+path, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set(auth.PrincipalIDHeader, user)
	req.Header.Set(auth.PrincipalHeader, authtest.Principal(user))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var out map[string]any
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &out)
	return resp.StatusCode, out, nil
}

func (in *instance) history(t *testing.T, user, id string) ([]map[string]any, bool) {
	t.Helper()
	var items []map[string]any
	complete, next := true, ""
	for {
		p := "/api/todos/" + id + "/history?pageSize=100"
		if next != "" {
			p += "&continuation=" + next
		}
		status, body, err := in.do("GET", p, user, "")
		if err != nil || status != 200 {
			t.Fatalf("history of %s: %d %v %v", id, status, body, err)
		}
		for _, it := range body["items"].([]any) {
			items = append(items, it.(map[string]any))
		}
		complete = complete && body["complete"] == true
		next, _ = body["continuation"].(string)
		if next == "" {
			return items, complete
		}
	}
}

func (in *instance) verify(t *testing.T, user, id string) (bool, map[string]any) {
	t.Helper()
	status, body, err := in.do("GET", "/api/todos/"+id+"/history/verify", user, "")
	if err != nil || status != 200 {
		t.Fatalf("verify %s: %d %v %v", id, status, body, err)
	}
	return body["verified"] == true, body
}

func (in *instance) list(t *testing.T, user string) []string {
	t.Helper()
	var ids []string
	next := ""
	for {
		p := "/api/todos?pageSize=7"
		if next != "" {
			p += "&continuation=" + next
		}
		status, body, err := in.do("GET", p, user, "")
		if err != nil || status != 200 {
			t.Fatalf("list: %d %v %v", status, body, err)
		}
		for _, it := range body["items"].([]any) {
			ids = append(ids, it.(map[string]any)["id"].(string))
		}
		next, _ = body["continuation"].(string)
		if next == "" {
			return ids
		}
	}
}

// load is the clients' shared record of what was acknowledged.
type load struct {
	scheme   string
	insts    []*instance
	requests atomic.Int64
	writes   atomic.Int64

	mu       sync.Mutex
	acked    map[string][]int64  // todo id → acknowledged versions
	pool     map[string][]string // user → ids to write to
	category map[string]string   // todo id → its category
	owners   map[string]string   // todo id → user
}

func (l *load) owner(id string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.owners[id]
}

func (l *load) ack(user, id string, version int64, category string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.owners == nil {
		l.owners = map[string]string{}
	}
	if _, ok := l.acked[id]; !ok {
		l.pool[user] = append(l.pool[user], id)
	}
	l.acked[id] = append(l.acked[id], version)
	l.owners[id], l.category[id] = user, category
	l.writes.Add(1)
}

func (l *load) pick(rnd *rand.Rand, user string) (string, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.pool[user]
	if len(p) == 0 {
		return "", ""
	}
	// Most writes go to a few todos, so that clients on different
	// instances race for them.
	id := p[rnd.IntN(min(len(p), 5))]
	if rnd.IntN(3) == 0 {
		id = p[rnd.IntN(len(p))]
	}
	return id, l.category[id]
}

// retire takes a moved-away id out of the pool.
func (l *load) retire(user, id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pool[user] = slices.DeleteFunc(l.pool[user], func(s string) bool { return s == id })
}

var categories = []string{"Grocery", "Work", "Home"}

func (l *load) step(rnd *rand.Rand, user string) {
	live := make([]*instance, 0, len(l.insts))
	for _, in := range l.insts {
		if !in.dead.Load() {
			live = append(live, in)
		}
	}
	in := live[rnd.IntN(len(live))]
	l.requests.Add(1)
	id, category := l.pick(rnd, user)
	version := func(body map[string]any) int64 { v, _ := body["version"].(float64); return int64(v) }
	switch op := rnd.IntN(10); {
	case id == "" || op < 3:
		c := categories[rnd.IntN(len(categories))]
		status, body, err := in.do("POST", "/api/todos", user, fmt.Sprintf(`{"category":%q,"title":"new %d"}`, c, rnd.IntN(1000)))
		if err == nil && status == 201 {
			l.ack(user, body["id"].(string), version(body), c)
		}
	case op < 8:
		status, body, err := in.do("PUT", "/api/todos/"+id, user, fmt.Sprintf(`{"category":%q,"title":"edit %d","isCompleted":%v}`, category, rnd.IntN(1000), rnd.IntN(2) == 0))
		if err == nil && status == 200 {
			l.ack(user, id, version(body), category)
		}
	case op < 9:
		status, body, err := in.do("POST", "/api/todos/"+id+"/rollback", user, `{"version":1}`)
		if err == nil && status == 200 {
			l.ack(user, id, version(body), category)
		}
	default:
		if l.scheme == partition.Synthetic {
			return // the synthetic scheme does not key on category: no moves
		}
		c := categories[(slices.Index(categories, category)+1)%len(categories)]
		status, body, err := in.do("POST", "/api/todos/"+id+"/move", user, fmt.Sprintf(`{"category":%q}`, c))
		if err == nil && status == 201 {
			l.retire(user, id)
			l.ack(user, body["id"].(string), version(body), c)
		}
	}
}

// leaseFeed stands in for the Functions host's Cosmos DB trigger over the
// todo container. The test server's change feed never advances, so the
// feed is a snapshot compared with what was delivered (the latest version
// of every changed document, no deletes, as the latest-version change feed
// gives). Documents are split into leases by partition key; each lease is
// owned by one instance, which gets its batches as payload invocations in
// the host's wire shape and whose outputs are upserted into the audit
// container item by item, as the output binding does. A lease's checkpoint
// moves only after its batch succeeded and only if the lease was still
// owned by the instance that processed it.
//
// What the host does and this assumes (from Azure/azure-webjobs-sdk-extensions,
// src/WebJobs.Extensions.CosmosDB/Trigger/CosmosDBTriggerListener.cs, which
// builds the Cosmos SDK's change feed processor with one lease container,
// an instance name per host instance and the lease intervals of the
// trigger attribute): leases are balanced so each instance holds about as
// many as the others (the SDK's EqualPartitionsBalancingStrategy takes
// expired leases first and otherwise steals one from the busiest
// instance); a dead instance's leases are taken once they expire, and
// processing resumes from the last checkpoint, so changes processed but
// not checkpointed are delivered again; an instance that lost a lease can
// still finish the batch it had, so a batch can be processed twice. The
// rebalancing interval and the expiry are shortened here to fit the test.
type leaseFeed struct {
	todos, audit store.Container
	insts        []*instance

	mu        sync.Mutex
	owner     [leaseCount]int
	delivered map[string]string // document → ETag checkpointed
	sent      map[string]string // document → ETag last sent to an instance
	// err is the last failure of a poll or a delivery; caughtUp says the
	// last poll found nothing to deliver and nothing failed.
	err      error
	caughtUp bool

	batches, redelivered atomic.Int64
}

func (f *leaseFeed) run(ctx context.Context) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	rebalance := time.NewTicker(700 * time.Millisecond)
	defer rebalance.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-rebalance.C:
			f.moveOneLease()
		case <-tick.C:
			f.poll(ctx)
		}
	}
}

// moveOneLease hands a random lease to another live instance, as a
// rebalancing instance steals one.
func (f *leaseFeed) moveOneLease() {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := rand.IntN(leaseCount)
	for range instanceCount {
		f.owner[l] = (f.owner[l] + 1) % instanceCount
		if !f.insts[f.owner[l]].dead.Load() {
			return
		}
	}
}

// failOver gives the leases of a dead instance to the live ones, as their
// expiry lets them take them.
func (f *leaseFeed) failOver(dead int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for l, o := range f.owner {
		if o == dead {
			f.owner[l] = (dead + 1 + l) % instanceCount
			if f.owner[l] == dead {
				f.owner[l] = (f.owner[l] + 1) % instanceCount
			}
		}
	}
}

func docKey(it store.Item) string { return it.PartitionKey.String() + "/" + it.ID }

func leaseOf(it store.Item) int {
	h := fnv.New32a()
	h.Write([]byte(it.PartitionKey.String()))
	return int(h.Sum32() % leaseCount)
}

// poll reads the snapshot and delivers each lease's changes to its owner,
// the leases in parallel, as the host runs one invocation per lease.
func (f *leaseFeed) poll(ctx context.Context) {
	var changed [leaseCount][]store.Item
	cont := ""
	for {
		page, err := f.todos.Query(ctx, store.Query{PageSize: store.MaxPageSize, Continuation: cont})
		if err != nil {
			f.record(0, err)
			return
		}
		f.mu.Lock()
		for _, it := range page.Items {
			if f.delivered[docKey(it)] != it.ETag {
				changed[leaseOf(it)] = append(changed[leaseOf(it)], it)
			}
		}
		f.mu.Unlock()
		if cont = page.Continuation; cont == "" {
			break
		}
	}
	pending := 0
	errs := make([]error, leaseCount)
	var wg sync.WaitGroup
	for l, items := range changed {
		pending += len(items)
		if len(items) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[l] = f.deliver(ctx, l, items[:min(len(items), 100)])
		}()
	}
	wg.Wait()
	f.record(pending, errors.Join(errs...))
}

func (f *leaseFeed) record(pending int, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		f.err = err
	}
	f.caughtUp = pending == 0 && err == nil
}

// deliver sends one batch of lease l to its owner and, on success,
// checkpoints it if the lease is still the owner's.
func (f *leaseFeed) deliver(ctx context.Context, l int, items []store.Item) error {
	f.mu.Lock()
	o := f.owner[l]
	again := false
	for _, it := range items {
		again = again || f.sent[docKey(it)] == it.ETag
		f.sent[docKey(it)] = it.ETag
	}
	f.mu.Unlock()
	f.batches.Add(1)
	if again {
		f.redelivered.Add(1)
	}
	docs := make([]json.RawMessage, len(items))
	for i, it := range items {
		docs[i] = it.Body
	}
	records, err := f.invoke(ctx, f.insts[o], docs)
	if err == nil {
		for _, rec := range records {
			if err = f.upsertRecord(ctx, rec); err != nil {
				break
			}
		}
	}
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.owner[l] != o {
		return nil // the lease moved meanwhile: its new owner starts from the checkpoint
	}
	for _, it := range items {
		f.delivered[docKey(it)] = it.ETag
	}
	return nil
}

// invoke posts the documents to an instance's AuditTrigger as the host
// does (Data.documents a JSON string of a JSON string of the array,
// Metadata only sys) and returns the items of its auditRecords output.
func (f *leaseFeed) invoke(ctx context.Context, in *instance, docs []json.RawMessage) ([]json.RawMessage, error) {
	arr, _ := json.Marshal(docs)
	once, _ := json.Marshal(string(arr))
	twice, _ := json.Marshal(string(once))
	sys, _ := json.Marshal(map[string]string{"MethodName": "AuditTrigger", "UtcNow": time.Now().UTC().Format(time.RFC3339Nano), "RandGuid": "6f3b2a1c-0000-4000-8000-00000000000a"})
	body, _ := json.Marshal(map[string]any{"Data": map[string]json.RawMessage{"documents": twice}, "Metadata": map[string]json.RawMessage{"sys": sys}})
	req, err := http.NewRequestWithContext(ctx, "POST", in.base+"/AuditTrigger", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Azure-Functions-InvocationId", "6f3b2a1c-0000-4000-8000-00000000000b")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("AuditTrigger answered %d: %s", resp.StatusCode, b)
	}
	var out struct {
		Outputs map[string]json.RawMessage `json:"Outputs"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	var records []json.RawMessage
	if raw := out.Outputs["auditRecords"]; len(raw) > 0 {
		if err := json.Unmarshal(raw, &records); err != nil {
			return nil, fmt.Errorf("auditRecords is not an array: %w", err)
		}
	}
	return records, nil
}

// upsertRecord writes one output item as the output binding does.
func (f *leaseFeed) upsertRecord(ctx context.Context, rec json.RawMessage) error {
	var keys map[string]any
	if err := json.Unmarshal(rec, &keys); err != nil {
		return err
	}
	var pk store.PartitionKey
	for _, p := range f.audit.Spec().PartitionKeyPaths {
		s, _ := keys[strings.TrimPrefix(p, "/")].(string)
		pk = append(pk, s)
	}
	_, err := f.audit.Upsert(ctx, pk, rec, nil)
	return err
}

func (f *leaseFeed) lastErr() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// drain waits until a poll finds nothing left to deliver.
func (f *leaseFeed) drain(limit time.Duration) bool {
	for start := time.Now(); time.Since(start) < limit; time.Sleep(200 * time.Millisecond) {
		f.mu.Lock()
		done := f.caughtUp
		f.mu.Unlock()
		if done {
			return true
		}
	}
	return false
}

// storedTodos returns, per user, the live todos as stored (not moving
// away), with the value of their partition key.
func storedTodos(t *testing.T, todos store.Container) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	cont := ""
	for {
		page, err := todos.Query(t.Context(), store.Query{PageSize: store.MaxPageSize, Continuation: cont,
			Filters: []store.Filter{{Field: "type", Op: store.Eq, Value: "todo"}}})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			var d struct {
				UserID   string `json:"userId"`
				MovingTo string `json:"movingTo"`
			}
			if err := json.Unmarshal(it.Body, &d); err != nil {
				t.Fatal(err)
			}
			if d.MovingTo != "" {
				continue
			}
			if out[d.UserID] == nil {
				out[d.UserID] = map[string]string{}
			}
			out[d.UserID][it.ID] = it.PartitionKey[len(it.PartitionKey)-1]
		}
		if cont = page.Continuation; cont == "" {
			return out
		}
	}
}
