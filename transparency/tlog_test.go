package transparency

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit"
	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/bolt/bolttest"
	"github.com/todoaudit/todo/internal/historytest"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/store"
)

// testKeys are one signing key for the tests of this package.
var testKeys = func() *Keys {
	skey, _, err := note.GenerateKey(nil, "todo.test/log")
	if err != nil {
		panic(err)
	}
	k, err := NewKeys(skey)
	if err != nil {
		panic(err)
	}
	return k
}()

// chain returns the audit records of n versions of one todo of owner.
func chain(t testing.TB, owner, id string, n int) []todo.AuditRecord {
	t.Helper()
	return chainAt(t, owner, id, n, time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
}

// chainAt is chain for a todo created at the given time, its versions a
// second apart.
func chainAt(t testing.TB, owner, id string, n int, at time.Time) []todo.AuditRecord {
	t.Helper()
	return historytest.Versions(t, todo.Todo{ID: id, Type: todo.TypeTodo, UserID: owner, Fields: todo.Fields{Category: "Work", Title: "title"}, CreatedAt: at}, n)
}

func put(t testing.TB, c store.Container, recs []todo.AuditRecord) {
	t.Helper()
	if err := (audit.Outcome{Records: recs}).Write(context.Background(), c); err != nil {
		t.Fatal(err)
	}
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

type fixture struct {
	audit, leases store.Container
	anchors       *DirAnchors
	// leafEncoding is the encoding its integrators append leaves in,
	// LeafNewest when empty.
	leafEncoding string
	// leafIndex is the key set its log keeps its leaves' indices in, as
	// the handler's on this store; nil, it keeps index documents, as on
	// Cosmos DB and in the logs of earlier builds.
	leafIndex KeySet
	store     *bolt.Store
}

func newFixture(t testing.TB) *fixture {
	cs := bolttest.Open(t, partition.Hierarchical, nil)
	return &fixture{audit: cs.Audit, leases: cs.Leases, anchors: &DirAnchors{Dir: t.TempDir()}, leafIndex: cs.Store.KeySet(LeafIndexSet),
		store: cs.Store}
}

// documentFixture is a fixture whose log keeps an index document a
// version.
func documentFixture(t testing.TB) *fixture {
	f := newFixture(t)
	f.leafIndex = nil
	return f
}

// clockedFixture is a fixture on an embedded store that stamps from now
// (unix seconds), with an integrator that reads the same clock and knows
// whether the store stamps in commit order.
func clockedFixture(t *testing.T, now *atomic.Int64) (*fixture, *Integrator) {
	clock := func() time.Time { return time.Unix(now.Load(), 0) }
	cs := bolttest.Open(t, partition.Hierarchical, &bolt.Options{Now: clock})
	f := &fixture{audit: cs.Audit, leases: cs.Leases, anchors: &DirAnchors{Dir: t.TempDir()}, leafIndex: cs.Store.KeySet(LeafIndexSet),
		store: cs.Store}
	in := f.integrator()
	in.Now, in.CommitOrdered = clock, cs.Store.StampsInCommitOrder()
	return f, in
}

func (f *fixture) integrator() *Integrator {
	return &Integrator{Audit: f.audit, Leases: f.leases, Keys: testKeys, Anchors: f.anchors, Log: quiet, leafEncoding: f.leafEncoding,
		LeafIndex: f.leafIndex}
}

func (f *fixture) log() *Log {
	return &Log{Leases: f.leases, Keys: testKeys, Audit: f.audit, Anchors: f.anchors, LeafIndex: f.leafIndex}
}

// logged is a fixture whose log holds n versions of one of alice's todos,
// integrated and published: the records, oldest first.
func logged(t testing.TB, id string, n int) (*fixture, []todo.AuditRecord) {
	t.Helper()
	return loggedIn(t, LeafNewest, id, n)
}

// loggedIn is logged with leaves of the encoding enc.
func loggedIn(t testing.TB, enc, id string, n int) (*fixture, []todo.AuditRecord) {
	t.Helper()
	return loggedInto(t, newFixture(t), enc, id, n)
}

// loggedInto is loggedIn with the fixture f.
func loggedInto(t testing.TB, f *fixture, enc, id string, n int) (*fixture, []todo.AuditRecord) {
	t.Helper()
	f.leafEncoding = enc
	recs := chain(t, "alice", id, n)
	put(t, f.audit, recs)
	run(t, f.integrator())
	return f, recs
}

func run(t testing.TB, in *Integrator) Result {
	t.Helper()
	res, err := in.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkLog checks the published log holds each of recs exactly once, every
// leaf proven under the checkpoint and no leaf besides.
func checkLog(t *testing.T, f *fixture, recs []todo.AuditRecord) {
	t.Helper()
	ctx := context.Background()
	l := f.log()
	msg, c, err := l.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Size != int64(len(recs)) {
		t.Fatalf("checkpoint size %d, want %d", c.Size, len(recs))
	}
	if err := TreeFromTiles(c, newTileReader(ctx, f.leases)); err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for _, r := range recs {
		p, err := l.Prove(ctx, r.EntityKey, r.Version)
		if err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		if seen[p.Index] {
			t.Fatalf("%s shares index %d", r.ID, p.Index)
		}
		seen[p.Index] = true
		b := ProofBundle{Checkpoint: string(msg), Index: p.Index, Leaf: p.Leaf, Proof: p.Proof}
		if _, _, err := b.Verify(testKeys.Verifier); err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		want, err := LeafOf(&r)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(p.Leaf, want.EncodeAs(LeafV1)) && !bytes.Equal(p.Leaf, want.EncodeAs(LeafV2)) {
			t.Fatalf("%s: leaf %q is not its leaf", r.ID, p.Leaf)
		}
	}
	rep, err := l.AuditStore(ctx, 0, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Verified || rep.Entries != int64(len(recs)) {
		t.Fatalf("audit of an honest log: %+v", rep)
	}
}

// Every version is appended once, whatever the batches, across tile and
// bundle boundaries, and each is proven in the published checkpoint. A
// pass reads its records once, however many appends they take, and looks
// none of them up.
func TestIntegrate(t *testing.T) {
	f := newFixture(t)
	in := f.integrator()
	in.MaxBatch = 100
	read := &queried{Container: f.audit}
	counted := &lookups{Container: f.leases}
	in.Audit, in.Leases = read, counted
	var all []todo.AuditRecord
	for i := range 3 {
		recs := chain(t, "alice", fmt.Sprintf("t%d", i), 120)
		put(t, f.audit, recs)
		all = append(all, recs...)
	}
	res := run(t, in)
	if res.Appended != 360 || res.Size != 360 || !res.Published {
		t.Fatalf("first pass: %+v", res)
	}
	if read.n.Load() != 360 || counted.n.Load() != 0 {
		t.Fatalf("first pass: %d records read for 360, %d looked up", read.n.Load(), counted.n.Load())
	}
	// Redelivered records and a pass with nothing new append nothing.
	put(t, f.audit, all[:50])
	if res := run(t, in); res.Appended != 0 || res.Published {
		t.Fatalf("idle pass: %+v", res)
	}
	// A fresh integrator (a restart) finds them logged in the store.
	if res := run(t, f.integrator()); res.Appended != 0 {
		t.Fatalf("restarted pass: %+v", res)
	}
	more := chain(t, "bob", "t0", 5)
	put(t, f.audit, more)
	if res := run(t, in); res.Appended != 5 || res.Size != 365 {
		t.Fatalf("second pass: %+v", res)
	}
	checkLog(t, f, append(all, more...))
}

// A log serves a checkpoint from its start (C2SP tlog-tiles): the first
// pass over no records signs the empty tree's, and the next one nothing.
func TestEmptyLogPublishesItsCheckpoint(t *testing.T) {
	f := newFixture(t)
	if _, _, err := f.log().Checkpoint(context.Background()); !todo.IsKind(err, todo.NotFound) {
		t.Fatalf("before any pass: %v", err)
	}
	if res := run(t, f.integrator()); res.Size != 0 || !res.Published {
		t.Fatalf("first pass: %+v", res)
	}
	_, c, err := f.log().Checkpoint(context.Background())
	if err != nil || c.Size != 0 || c.Root != tlog.Hash(sha256.Sum256(nil)) {
		t.Fatalf("the empty log's checkpoint: %v %v", c, err)
	}
	if res := run(t, f.integrator()); res.Published {
		t.Fatalf("second pass: %+v", res)
	}
}

// A pass appends at most passAppends appends of leaves, so that what it
// holds in memory is bounded; the passes after it catch up, on a store
// that reads in commit order and on one that does not.
func TestPassesCatchUpInBoundedSteps(t *testing.T) {
	for _, ordered := range []bool{false, true} {
		t.Run(fmt.Sprintf("commit ordered %v", ordered), func(t *testing.T) {
			// Each owner's records a second apart, so that a pass stops
			// within the records of one second.
			var now atomic.Int64
			now.Store(1_800_000_000)
			f, in := clockedFixture(t, &now)
			in.MaxBatch = 2
			in.CommitOrdered = ordered
			perPass := passAppends * in.MaxBatch
			var all []todo.AuditRecord
			for _, owner := range []string{"amy", "mia", "zed"} {
				recs := chain(t, owner, "t", perPass*3/4)
				put(t, f.audit, recs)
				all = append(all, recs...)
				now.Add(1)
			}
			now.Add(60) // past every margin
			for i, want := range []int{perPass, perPass, len(all) - 2*perPass, 0} {
				if res := run(t, in); res.Appended != want {
					t.Fatalf("pass %d appended %d, want %d", i, res.Appended, want)
				}
			}
			checkLog(t, f, all)
		})
	}
}

// lookups counts the reads of one container's documents whose ids start
// with prefix, or with "tlog-leaf-" (index documents) when it is empty.
type lookups struct {
	store.Container
	prefix string
	n      atomic.Int32
}

func (l *lookups) Read(ctx context.Context, pk store.PartitionKey, id string) (store.Item, error) {
	if strings.HasPrefix(id, cmp.Or(l.prefix, "tlog-leaf-")) {
		l.n.Add(1)
	}
	return l.Container.Read(ctx, pk, id)
}

// A pass looks for the index document of a record only when the log may
// hold it: not for records of times later than every leaf's, which is
// what new versions are, but for one of an earlier time (a record written
// again by an erasure or a redelivery has a new _ts, not a new time), and
// for every record of a log whose state predates the bound.
func TestLooksUpOnlyWhatTheLogMayHold(t *testing.T) {
	f := documentFixture(t) // every lookup a read of the leases container
	counted := &lookups{Container: f.leases}
	in := f.integrator()
	in.Leases = counted
	first := chain(t, "alice", "a", 40)
	put(t, f.audit, first)
	if res := run(t, in); res.Appended != 40 || counted.n.Load() != 0 {
		t.Fatalf("first pass: %+v, %d lookups", res, counted.n.Load())
	}
	later := chainAt(t, "alice", "b", 30, first[len(first)-1].DateCreatedUTC.Add(time.Minute))
	put(t, f.audit, later)
	if res := run(t, in); res.Appended != 30 || counted.n.Load() != 0 {
		t.Fatalf("new versions: %+v, %d lookups", res, counted.n.Load())
	}
	more := chainAt(t, "alice", "c", 20, later[len(later)-1].DateCreatedUTC.Add(time.Minute))
	put(t, f.audit, more)
	put(t, f.audit, first[:10]) // written again, after the log has them
	// A restarted integrator has seen nothing: it looks up the 70 records
	// the log holds, written again or not, and none of the 20 new ones.
	fresh := f.integrator()
	fresh.Leases = counted
	if res := run(t, fresh); res.Appended != 20 || counted.n.Load() != 70 {
		t.Fatalf("after a restart: %+v, %d lookups", res, counted.n.Load())
	}
	checkLog(t, f, append(append(append([]todo.AuditRecord(nil), first...), later...), more...))

	// A state written before the bound was kept: every record is looked
	// up until an append sets it.
	it, err := f.leases.Read(context.Background(), store.PartitionKey{stateID}, stateID)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]json.RawMessage
	_ = json.Unmarshal(it.Body, &st)
	delete(st, "newestAt")
	b, _ := json.Marshal(st)
	if _, err := f.leases.Replace(context.Background(), store.PartitionKey{stateID}, b, nil); err != nil {
		t.Fatal(err)
	}
	counted.n.Store(0)
	last := chainAt(t, "alice", "d", 5, more[len(more)-1].DateCreatedUTC.Add(time.Minute))
	put(t, f.audit, last)
	if res := run(t, fresh); res.Appended != 5 || counted.n.Load() != 5 {
		t.Fatalf("a state of the old form: %+v, %d lookups", res, counted.n.Load())
	}
}

// An integrator appends to the tree it last wrote from what it kept of its
// edge: it reads none of its tiles or entry bundles back, across tile and
// bundle boundaries. A new one reads them (and checks them against the
// root), and both write the same log.
func TestAppendsReadNoTilesBack(t *testing.T) {
	f := newFixture(t)
	tiles := &lookups{Container: f.leases, prefix: "tlog-tile-"}
	in := f.integrator()
	in.Leases = tiles
	var recs []todo.AuditRecord
	for i := range 9 {
		batch := chain(t, "alice", fmt.Sprintf("e%d", i), 37)
		put(t, f.audit, batch)
		recs = append(recs, batch...)
		if res := run(t, in); res.Appended != 37 {
			t.Fatalf("pass %d: %+v", i, res)
		}
	}
	if n := tiles.n.Load(); n != 0 {
		t.Fatalf("%d tiles read back in 9 appends", n)
	}
	checkLog(t, f, recs)
	fresh := f.integrator()
	fresh.Leases = tiles
	batch := chain(t, "alice", "fresh", 37)
	put(t, f.audit, batch)
	if res := run(t, fresh); res.Appended != 37 || tiles.n.Load() == 0 {
		t.Fatalf("a new integrator: %+v, %d tiles read", res, tiles.n.Load())
	}
	checkLog(t, f, append(recs, batch...))
}

// A pass that appends nothing leaves the watermark where it was, so the
// passes after it read what it read: they look none of it up again.
func TestIdlePassesLookNothingUp(t *testing.T) {
	f := newFixture(t)
	counted := &lookups{Container: f.leases}
	in := f.integrator()
	in.Leases = counted
	put(t, f.audit, chain(t, "alice", "a", 40))
	if res := run(t, in); res.Appended != 40 {
		t.Fatalf("first pass: %+v", res)
	}
	later := time.Now().Add(time.Minute) // past the margin of every record
	in.Now = func() time.Time { return later }
	for pass := range 3 {
		if res := run(t, in); res.Appended != 0 || counted.n.Load() != 0 {
			t.Fatalf("idle pass %d: %+v, %d lookups", pass+1, res, counted.n.Load())
		}
	}
}

// queried counts the audit records (not activity entries) a container's
// queries return.
type queried struct {
	store.Container
	n atomic.Int32
}

func (q *queried) Query(ctx context.Context, sq store.Query) (store.Page, error) {
	page, err := q.Container.Query(ctx, sq)
	for _, it := range page.Items {
		if len(it.PartitionKey) != 1 || !todo.IsActivityKey(it.PartitionKey[0]) {
			q.n.Add(1)
		}
	}
	return page, err
}

// On a store that stamps in commit order, a pass reads again only the
// records of the newest second the last append read: the records of
// earlier seconds cannot be joined by later commits.
func TestCommitOrderedPassesReadFromTheNewestSecond(t *testing.T) {
	var now atomic.Int64
	now.Store(1_800_000_000)
	f, in := clockedFixture(t, &now)
	read := &queried{Container: f.audit}
	in.Audit = read
	var recs []todo.AuditRecord
	last := 0 // the records of the previous pass's second
	for i, n := range []int{20, 10, 5, 8} {
		batch := chain(t, "alice", fmt.Sprintf("e%d", i), n)
		put(t, f.audit, batch)
		recs = append(recs, batch...)
		read.n.Store(0)
		if res := run(t, in); res.Appended != n {
			t.Fatalf("pass %d: %+v", i, res)
		}
		if got := int(read.n.Load()); got != last+n {
			t.Fatalf("pass %d read %d records, want %d", i, got, last+n)
		}
		last = n
		now.Add(1)
	}
	checkLog(t, f, recs)
}

// writesAfterFirstPage is an audit container that, once it has served
// the first page of a query that has more, runs write: a write committed
// while a pass reads.
type writesAfterFirstPage struct {
	store.Container
	write func()
	done  bool
}

func (w *writesAfterFirstPage) Query(ctx context.Context, q store.Query) (store.Page, error) {
	page, err := w.Container.Query(ctx, q)
	if err == nil && !w.done && page.Continuation != "" {
		w.done = true
		w.write()
	}
	return page, err
}

// On a store that stamps in commit order, the first pass reads in commit
// order too: a record committed while it reads, at a key it has already
// passed, is found, even when a later record read after it moves the
// watermark past its second.
func TestCommitOrderedFirstPassFindsRecordsCommittedWhileItReads(t *testing.T) {
	var now atomic.Int64
	now.Store(1_800_000_000)
	f, in := clockedFixture(t, &now)
	recs := chain(t, "mmmm", "m", store.MaxPageSize+200)
	put(t, f.audit, recs)
	early, late := chain(t, "aaaa", "a", 1), chain(t, "zzzz", "z", 1)
	recs = append(append(recs, early...), late...)
	in.Audit = &writesAfterFirstPage{Container: f.audit, write: func() {
		now.Add(1)
		put(t, f.audit, early) // before the keys the pass has read
		now.Add(1)
		put(t, f.audit, late) // after them, a second later
	}}
	for range 3 {
		run(t, in)
		now.Add(1)
	}
	checkLog(t, f, recs)
}

// countingVerifier counts the signatures it checks.
type countingVerifier struct {
	note.Verifier
	n *atomic.Int32
}

func (v countingVerifier) Verify(msg, sig []byte) bool {
	v.n.Add(1)
	return v.Verifier.Verify(msg, sig)
}

// relocate points the index of a version at index, where f's log keeps
// it.
func (f *fixture) relocate(t testing.TB, entityKey string, version, index int64) {
	t.Helper()
	ctx := context.Background()
	var err error
	if f.leafIndex != nil {
		err = f.leafIndex.Put(ctx, [][]byte{leafIndexKey(entityKey, version)}, [][]byte{appendLeafIndex(nil, index)}, nil)
	} else {
		id := indexID(entityKey, version)
		err = upsert(ctx, f.leases, id, indexDoc{ID: id, Index: index})
	}
	if err != nil {
		t.Fatal(err)
	}
}

// countingLog is f's log with a verifier that counts the signatures it
// checks.
func (f *fixture) countingLog() (*Log, *atomic.Int32) {
	var n atomic.Int32
	keys := *testKeys
	keys.Verifier = countingVerifier{testKeys.Verifier, &n}
	l := f.log()
	l.Keys = &keys
	return l, &n
}

// The log is checked against its newest anchor once: a state this
// integrator committed, extending one it had checked, or found consistent
// with the same anchor, is not checked again. A new process checks.
func TestCheckedOnceAgainstAnAnchor(t *testing.T) {
	f := newFixture(t)
	var verified atomic.Int32
	keys := *testKeys
	keys.Verifier = countingVerifier{testKeys.Verifier, &verified}
	newIntegrator := func() *Integrator {
		in := f.integrator()
		in.Keys = &keys
		return in
	}
	in := newIntegrator()
	for i := range 4 {
		put(t, f.audit, chain(t, "alice", fmt.Sprintf("o%d", i), 3))
		if res := run(t, in); res.Appended != 3 || !res.Published {
			t.Fatalf("pass %d: %+v", i, res)
		}
	}
	run(t, in)
	if n := verified.Load(); n != 0 {
		t.Fatalf("%d signatures checked in five passes, each of a checkpoint this integrator anchored; want none", n)
	}
	run(t, newIntegrator())
	if n := verified.Load(); n != 1 {
		t.Fatalf("a new integrator: %d signatures checked, want 1", n)
	}
}

// Consistency proofs from every earlier checkpoint verify offline.
func TestConsistency(t *testing.T) {
	f := newFixture(t)
	in := f.integrator()
	ctx := context.Background()
	var notes [][]byte
	for i := range 4 {
		put(t, f.audit, chain(t, "alice", fmt.Sprintf("c%d", i), 1+i*90))
		run(t, in)
		msg, _, err := f.log().Checkpoint(ctx)
		if err != nil {
			t.Fatal(err)
		}
		notes = append(notes, msg)
	}
	for i := range notes {
		a, _ := OpenCheckpoint(notes[i], testKeys.Verifier)
		b, _ := OpenCheckpoint(notes[len(notes)-1], testKeys.Verifier)
		p, err := f.log().Consistency(ctx, a.Size, b.Size)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := VerifyConsistency(notes[i], notes[len(notes)-1], p, testKeys.Verifier); err != nil {
			t.Fatalf("from %d: %v", a.Size, err)
		}
		if len(p) > 0 {
			p[0][0] ^= 1
			if _, _, err := VerifyConsistency(notes[i], notes[len(notes)-1], p, testKeys.Verifier); err == nil {
				t.Fatalf("from %d: a tampered proof verifies", a.Size)
			}
		}
	}
	if _, err := f.log().Consistency(ctx, 5, 1); !todo.IsKind(err, todo.Invalid) {
		t.Fatalf("from > to: %v", err)
	}
}

// Two integrators at once produce one tree: every version once, and the
// checkpoint proves them all.
func TestConcurrentIntegrators(t *testing.T) {
	f := newFixture(t)
	var ins []*Integrator
	for range 2 {
		in := f.integrator()
		in.MaxBatch = 7
		ins = append(ins, in)
	}
	var all []todo.AuditRecord
	errs := make(chan error, 20*len(ins))
	for i := range 20 {
		recs := chain(t, "alice", fmt.Sprintf("x%d", i), 10)
		put(t, f.audit, recs)
		all = append(all, recs...)
		// Both integrators append the same new records at once.
		var wg sync.WaitGroup
		for _, in := range ins {
			wg.Go(func() {
				if _, err := in.Run(context.Background()); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	run(t, f.integrator())
	checkLog(t, f, all)
}

// upsert writes one log document as v.
func upsert(ctx context.Context, c store.Container, id string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = c.Upsert(ctx, store.PartitionKey{id}, b, nil)
	return err
}

// separately is a container without the embedded store's writes across
// partitions, as Cosmos DB's: the integrator writes each log document on
// its own.
type separately struct{ store.Container }

// An integrator that fails at any step of an append (as if killed there)
// leaves a log that the next pass completes with no gap and no duplicate,
// whether a build's documents are written in one transaction or each on
// its own.
func TestResumeAfterFailure(t *testing.T) {
	for _, step := range []string{"hash", "state", "tile", "tile written separately"} {
		t.Run(step, func(t *testing.T) {
			f := newFixture(t)
			if strings.HasSuffix(step, " separately") {
				step, f.leases = "tile", separately{f.leases}
			}
			in := f.integrator()
			in.MaxBatch = 130
			recs := chain(t, "alice", "k", 300)
			put(t, f.audit, recs)
			failed := errors.New("killed")
			var n atomic.Int32
			in.failAfter = func(s string) error {
				if s == step {
					if n.Add(1) == 2 {
						return failed
					}
				}
				return nil
			}
			if _, err := in.Run(context.Background()); !errors.Is(err, failed) {
				t.Fatalf("pass with a failure: %v", err)
			}
			// A new process: nothing kept in memory.
			run(t, f.integrator())
			checkLog(t, f, recs)
		})
	}
}

// A store rolled back to an older copy, while the anchors are kept, is
// refused: nothing is signed, the refusal is reported, and the audit
// reports the store behind the anchor.
func TestRollbackRefused(t *testing.T) {
	f := newFixture(t)
	in := f.integrator()
	put(t, f.audit, chain(t, "alice", "r", 3))
	run(t, in)
	st, err := loadState(context.Background(), f.leases, nil)
	if err != nil {
		t.Fatal(err)
	}
	put(t, f.audit, chain(t, "alice", "r", 6))
	run(t, in)
	// Roll the log state back to the copy read after the first pass.
	b, _ := json.Marshal(st)
	if _, err := f.leases.Upsert(context.Background(), store.PartitionKey{stateID}, b, nil); err != nil {
		t.Fatal(err)
	}
	var reported error
	// The integrator that found the log consistent before, and a new one.
	for _, in := range []*Integrator{in, f.integrator()} {
		reported = nil
		in.Report = func(err error) { reported = err }
		_, err = in.Run(context.Background())
		if !errors.Is(err, ErrRefused) || reported == nil || !strings.Contains(todo.Message(reported), "behind the anchored checkpoint") {
			t.Fatalf("rolled-back store: %v; reported %v", err, reported)
		}
	}
	rep, err := f.log().AuditStore(context.Background(), 0, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verified || !hasProblem(rep, BehindAnchor, "", 0) {
		t.Fatalf("audit: %+v", rep)
	}
}

func hasProblem(rep AuditReport, kind, id string, version int64) bool {
	for _, p := range rep.Problems {
		if p.Kind == kind && p.EntityID == id && p.Version == version {
			return true
		}
	}
	return false
}

// The audit reports a deleted todo's versions, an edited record's hash and
// a record that never reached the log, in a log of either leaf encoding: a
// leaf that names its version (LeafV1) names the deleted todo, one that
// holds only its hash (LeafV2) is reported by its index.
func TestAuditFindsTampering(t *testing.T) {
	for _, enc := range []string{LeafV1, LeafV2} {
		t.Run(enc, func(t *testing.T) { auditFindsTampering(t, enc) })
	}
}

func auditFindsTampering(t *testing.T, enc string) {
	f := newFixture(t)
	f.leafEncoding = enc
	ctx := context.Background()
	gone, edited := chain(t, "alice", "gone", 2), chain(t, "alice", "edited", 2)
	put(t, f.audit, append(gone, edited...))
	run(t, f.integrator())
	goneAt, err := f.log().Locate(ctx, []VersionRef{{gone[0].EntityKey, 1}, {gone[1].EntityKey, 2}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range gone {
		if err := f.audit.Delete(ctx, store.PartitionKey{r.EntityKey}, r.ID, nil); err != nil {
			t.Fatal(err)
		}
	}
	e := edited[1]
	e.Hash = strings.Repeat("0", 64)
	put(t, f.audit, []todo.AuditRecord{e})
	unlogged := chain(t, "bob", "late", 1)
	put(t, f.audit, unlogged)
	rep, err := f.log().AuditStore(ctx, 0, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want := []Problem{{Kind: HashDiffers, EntityID: "edited", Version: 2}, {Kind: MissingFromLog, EntityID: "late", Version: 1}}
	if enc == LeafV1 {
		want = append(want, Problem{Kind: MissingFromStore, EntityID: "gone", Version: 1}, Problem{Kind: MissingFromStore, EntityID: "gone", Version: 2})
	} else {
		want = append(want, Problem{Kind: MissingFromStore, Index: &goneAt[0]}, Problem{Kind: MissingFromStore, Index: &goneAt[1]})
	}
	for _, w := range want {
		if !slices.ContainsFunc(rep.Problems, func(p Problem) bool {
			return p.Kind == w.Kind && p.EntityID == w.EntityID && p.Version == w.Version && (p.Index == nil) == (w.Index == nil) &&
				(p.Index == nil || *p.Index == *w.Index)
		}) {
			t.Errorf("no %+v in %+v", w, rep)
		}
	}
	if rep.Verified || len(rep.Problems) != 4 {
		t.Fatalf("audit: %+v", rep)
	}
	// A record just written is pending, not missing.
	rep, err = f.log().AuditStore(ctx, time.Hour, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pending != 1 || hasProblem(rep, MissingFromLog, "late", 1) {
		t.Fatalf("pending: %+v", rep)
	}
}

// A log whose older leaves name their versions (LeafV1, as earlier builds
// wrote them) and whose newer ones hold only their hash (LeafV2) proves,
// checks and audits every version, one todo's chain running across both.
func TestLogOfBothLeafEncodings(t *testing.T) {
	f := newFixture(t)
	f.leafEncoding = LeafV1
	recs := chain(t, "alice", "mix", 6)
	put(t, f.audit, recs[:3])
	run(t, f.integrator())
	f.leafEncoding = ""
	put(t, f.audit, recs[3:])
	run(t, f.integrator())
	checkLog(t, f, recs)
	ctx := context.Background()
	if got, err := f.log().Check(ctx, recs); err != nil || got != (Logged{Logged: 6}) {
		t.Fatalf("check: %+v %v", got, err)
	}
	var bundles []ProofBundle
	for i, r := range recs {
		p, err := f.log().Prove(ctx, r.EntityKey, r.Version)
		if err != nil {
			t.Fatal(err)
		}
		if header, _, _ := bytes.Cut(p.Leaf, []byte("\n")); (i < 3) != (string(header) == LeafV1) {
			t.Fatalf("version %d's leaf is %s", r.Version, header)
		}
		bundles = append(bundles, ProofBundle{Checkpoint: string(p.Checkpoint), Index: p.Index, Leaf: p.Leaf, Proof: p.Proof})
	}
	if n, err := VerifyHistory(recs, bundles, testKeys.Verifier); err != nil || n != 6 {
		t.Fatalf("the history with its six proofs: %d proven, %v", n, err)
	}
	if bytes.Contains(bundles[5].Leaf, []byte("alice")) || bytes.Contains(bundles[5].Leaf, []byte("mix")) {
		t.Fatalf("a LeafV2 leaf names its owner or todo: %q", bundles[5].Leaf)
	}
}

// Check counts the versions whose records give the leaf logged at their
// index, and those not logged yet; it names the first version whose record
// gives another leaf than the one logged: another hash, or none at all, and
// for a leaf that names its version (LeafV1) another link or time. (A
// LeafV2 leaf holds the hash alone, which covers the link and the time:
// the records Check is given have been checked against their hashes.)
func TestCheckComparesRecordsWithTheLog(t *testing.T) {
	for _, enc := range []string{LeafV1, LeafV2} {
		t.Run(enc, func(t *testing.T) { checkComparesRecordsWithTheLog(t, enc) })
	}
}

func checkComparesRecordsWithTheLog(t *testing.T, enc string) {
	f := newFixture(t)
	f.leafEncoding = enc
	ctx := context.Background()
	l := f.log()
	recs := chain(t, "alice", "chk", 7)
	if got, err := l.Check(ctx, recs); err != nil || got != (Logged{Pending: 7}) {
		t.Fatalf("before a checkpoint: %+v %v", got, err)
	}
	put(t, f.audit, recs[:5])
	run(t, f.integrator())
	if got, err := l.Check(ctx, recs); err != nil || got != (Logged{Logged: 5, Pending: 2}) {
		t.Fatalf("five logged, two not: %+v %v", got, err)
	}
	for name, x := range map[string]struct {
		edit      func(r *todo.AuditRecord)
		namedOnly bool
	}{
		"hash":     {func(r *todo.AuditRecord) { r.Hash = strings.Repeat("0", 64) }, false},
		"prevHash": {func(r *todo.AuditRecord) { r.PrevHash = strings.Repeat("0", 64) }, true},
		"time":     {func(r *todo.AuditRecord) { r.DateCreatedUTC = r.DateCreatedUTC.Add(time.Nanosecond) }, true},
		"no leaf":  {func(r *todo.AuditRecord) { r.Hash = "" }, false},
	} {
		edited := append([]todo.AuditRecord(nil), recs...)
		x.edit(&edited[2])
		x.edit(&edited[3])
		want := Logged{Logged: 3, Pending: 2, Differs: 3}
		if x.namedOnly && enc == LeafV2 {
			want = Logged{Logged: 5, Pending: 2}
		}
		if got, err := l.Check(ctx, edited); err != nil || got != want {
			t.Errorf("versions 3 and 4 with another %s: %+v %v, want %+v", name, got, err, want)
		}
	}
}

// A tile edited in the store fails the tree check and every proof through
// it.
func TestTamperedTileRefused(t *testing.T) {
	f, recs := logged(t, "tt", 5)
	ctx := context.Background()
	tile := tlog.Tile{H: TileHeight, L: 0, N: 0, W: 5}
	var d tileDoc
	if _, err := read(ctx, f.leases, tileID(tile), &d); err != nil {
		t.Fatal(err)
	}
	d.Data[40] ^= 1
	if err := upsert(ctx, f.leases, tileID(tile), d); err != nil {
		t.Fatal(err)
	}
	_, c, _ := f.log().Checkpoint(ctx)
	if err := TreeFromTiles(c, newTileReader(ctx, f.leases)); err == nil {
		t.Fatal("a tampered tile gives the checkpoint's tree")
	}
	if _, err := f.log().Prove(ctx, recs[0].EntityKey, 1); err == nil {
		t.Fatal("a proof through a tampered tile was served")
	}
}

// An index document holds the id and the index of its leaf, no more; one
// an earlier build wrote, with the entity key, the version and the leaf as
// well, still serves proofs, checks and locations.
func TestIndexDocumentsOfBothForms(t *testing.T) {
	f, recs := loggedInto(t, documentFixture(t), LeafV1, "old", 3)
	ctx := context.Background()
	l := f.log()
	refs := make([]VersionRef, len(recs))
	for i, r := range recs {
		refs[i] = VersionRef{EntityKey: r.EntityKey, Version: r.Version}
	}
	idx, err := l.Locate(ctx, refs)
	if err != nil {
		t.Fatal(err)
	}
	type oldIndexDoc struct {
		ID        string `json:"id"`
		EntityKey string `json:"entityKey"`
		Version   int64  `json:"version"`
		Index     int64  `json:"index"`
		Leaf      []byte `json:"leaf"`
	}
	for i, r := range recs {
		id := indexID(r.EntityKey, r.Version)
		it, err := f.leases.Read(ctx, store.PartitionKey{id}, id)
		if err != nil {
			t.Fatal(err)
		}
		var members map[string]json.RawMessage
		if err := json.Unmarshal(it.Body, &members); err != nil {
			t.Fatal(err)
		}
		for name := range members {
			if name != "id" && name != "index" && !strings.HasPrefix(name, "_") {
				t.Errorf("index document %s holds %s", it.Body, name)
			}
		}
		leaf, err := LeafOf(&r)
		if err != nil {
			t.Fatal(err)
		}
		old := oldIndexDoc{ID: id, EntityKey: r.EntityKey, Version: r.Version, Index: idx[i], Leaf: leaf.EncodeAs(LeafV1)}
		if err := upsert(ctx, f.leases, id, old); err != nil {
			t.Fatal(err)
		}
	}
	checkLog(t, f, recs)
	if got, err := l.Check(ctx, recs); err != nil || got != (Logged{Logged: 3}) {
		t.Fatalf("check through documents of the old form: %+v %v", got, err)
	}
	if again, err := l.Locate(ctx, refs); err != nil || !slices.Equal(again, idx) {
		t.Fatalf("located through documents of the old form at %v (%v), want %v", again, err, idx)
	}
}

// A proof takes its leaf from the entry bundle, and serves it only when it
// is the tree's leaf and, when the leaf names its version (LeafV1), the
// version asked for: an index document that locates another version's
// leaf, or an entry edited in its bundle, is an internal error, never a
// proof. A LeafV2 leaf names nothing: the proof is served, and its reader,
// checking it against the version's record, refuses it.
func TestProveRefusesAnotherLeaf(t *testing.T) {
	for _, enc := range []string{LeafV1, LeafV2} {
		t.Run(enc, func(t *testing.T) { proveRefusesAnotherLeaf(t, newFixture(t), enc) })
		t.Run(enc+" documents", func(t *testing.T) { proveRefusesAnotherLeaf(t, documentFixture(t), enc) })
	}
}

func proveRefusesAnotherLeaf(t *testing.T, f *fixture, enc string) {
	f, recs := loggedInto(t, f, enc, "pr", 3)
	ctx := context.Background()
	l := f.log()
	key := recs[0].EntityKey
	idx, err := l.Locate(ctx, []VersionRef{{key, 1}, {key, 2}, {key, 3}})
	if err != nil {
		t.Fatal(err)
	}
	f.relocate(t, key, 2, idx[2])
	p, err := l.Prove(ctx, key, 2)
	switch {
	case enc == LeafV1 && !todo.IsKind(err, todo.Internal):
		t.Fatalf("version 2 located at version 3's leaf: proven at %d, %v; want Internal", p.Index, err)
	case enc == LeafV2 && err != nil:
		t.Fatalf("version 2 located at version 3's leaf: %v", err)
	case enc == LeafV2:
		if want, err := LeafOf(&recs[1]); err != nil || want.LoggedAs(tlog.RecordHash(p.Leaf)) {
			t.Fatalf("version 2's record opens version 3's leaf (%v)", err)
		}
	}

	bundle := bundleTile(3, 0)
	var d tileDoc
	if _, err := read(ctx, f.leases, tileID(bundle), &d); err != nil {
		t.Fatal(err)
	}
	entries, err := ParseBundle(d.Data)
	if err != nil || d.From != 0 || len(entries) != 3 {
		t.Fatalf("bundle %+v: %d entries, %v", d, len(entries), err)
	}
	entries[idx[0]][len(entries[idx[0]])-3] ^= 1 // version 1's time, a nanosecond later
	if d.Data, err = EncodeBundle(entries); err != nil {
		t.Fatal(err)
	}
	if err := upsert(ctx, f.leases, tileID(bundle), d); err != nil {
		t.Fatal(err)
	}
	if p, err := l.Prove(ctx, key, 1); !todo.IsKind(err, todo.Internal) {
		t.Fatalf("version 1 edited in its bundle: proven at %d, %v; want Internal", p.Index, err)
	}
	if _, err := l.Prove(ctx, key, 3); err != nil {
		t.Fatalf("version 3, untouched: %v", err)
	}
}

// The latest checkpoint is verified once however often it is read, and a
// stored note that differs from the one verified is verified again: one
// that does not verify is refused, not served from what was read before.
func TestCheckpointVerifiedOncePerNote(t *testing.T) {
	f := newFixture(t)
	put(t, f.audit, chain(t, "alice", "o1", 2))
	run(t, f.integrator())
	l, verified := f.countingLog()
	ctx := context.Background()
	for range 3 {
		if _, c, err := l.Checkpoint(ctx); err != nil || c.Size != 2 {
			t.Fatalf("checkpoint of size %d, %v; want 2", c.Size, err)
		}
	}
	if n := verified.Load(); n != 1 {
		t.Fatalf("three reads of one checkpoint checked %d signatures, want 1", n)
	}
	msg, _, err := l.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tampered := bytes.Replace(msg, []byte("\n2\n"), []byte("\n3\n"), 1)
	if err := upsert(ctx, f.leases, checkpointID, checkpointDoc{ID: checkpointID, Size: 3, Note: string(tampered)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Checkpoint(ctx); !todo.IsKind(err, todo.Internal) {
		t.Fatalf("a tampered stored checkpoint read after a good one: %v, want Internal", err)
	}
}

// overtaken is an integrator's anchors that let another integrator append
// and anchor, once, between the pass reading its state and its anchor.
type overtaken struct {
	Anchors
	other func()
	once  sync.Once
}

func (o *overtaken) Newest(ctx context.Context) ([]byte, error) {
	o.once.Do(o.other)
	return o.Anchors.Newest(ctx)
}

// A pass whose state another integrator extends and anchors while the pass
// checks it finds the anchor ahead of the state it read: that is the log
// moving on, not a rollback, and the pass signs nothing and refuses
// nothing; the next pass appends from the newer state.
func TestOvertakenPassRefusesNothing(t *testing.T) {
	f := newFixture(t)
	put(t, f.audit, chain(t, "alice", "o1", 2))
	run(t, f.integrator())
	put(t, f.audit, chain(t, "alice", "o2", 3))
	in := f.integrator()
	var refused error
	in.Report = func(err error) { refused = cmp.Or(refused, err) }
	in.Anchors = &overtaken{Anchors: f.anchors, other: func() {
		if res := run(t, f.integrator()); res.Appended != 3 || !res.Published {
			t.Fatalf("the other integrator: %+v", res)
		}
	}}
	if res := run(t, in); res.Appended != 0 || res.Published {
		t.Fatalf("the overtaken pass: %+v, want nothing appended or signed", res)
	}
	put(t, f.audit, chain(t, "alice", "o3", 1))
	if res := run(t, in); res.Appended != 1 || !res.Published || res.Size != 6 {
		t.Fatalf("the next pass: %+v, want one leaf appended and signed at size 6", res)
	}
	if refused != nil {
		t.Fatalf("refused: %v", refused)
	}
}

// The log's tile and index documents are the bytes json.Marshal gives.
func TestDocumentsEncodeAsJSON(t *testing.T) {
	for _, d := range []tileDoc{
		{ID: "tlog-tile-tile_0_000.p_3", Data: []byte{0, 1, 2, 0xff, 0xfe}},
		{ID: "tlog-tile-tile_entries_001", Data: bytes.Repeat([]byte("entry\n"), 100)},
		{ID: "tlog-tile-tile_entries_002.p_9", From: 4, Data: []byte("piece")},
		{ID: "x", Data: []byte{}},
	} {
		want, _ := json.Marshal(d)
		if got := d.appendJSON(nil); !bytes.Equal(got, want) {
			t.Errorf("tile document\n got %s\nwant %s", got, want)
		}
	}
	for _, d := range []indexDoc{
		{ID: "tlog-leaf-ab-v1", Index: 0},
		{ID: "tlog-leaf-cd-v9", Index: 123456789},
		{ID: "b<o>b&\"\\\u2028é\xff/t\x01", Index: 1 << 40},
	} {
		want, _ := json.Marshal(d)
		if got := d.appendJSON(nil); !bytes.Equal(got, want) {
			t.Errorf("index document\n got %s\nwant %s", got, want)
		}
	}
}

// A checkpoint the process has just published is served without checking
// the signature it made; a stored note that is not the one it signed is
// checked, and refused when the signature is not the log's.
func TestSignedCheckpointServedUnchecked(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	l, checked := f.countingLog()
	in := f.integrator()
	in.Published = l.Signed
	put(t, f.audit, chain(t, "alice", "sg", 3))
	run(t, in)
	if _, c, err := l.Checkpoint(ctx); err != nil || c.Size != 3 || checked.Load() != 0 {
		t.Fatalf("the checkpoint just published: size %d, %v, %d signatures checked; want none", c.Size, err, checked.Load())
	}
	var d checkpointDoc
	if _, err := read(ctx, f.leases, checkpointID, &d); err != nil {
		t.Fatal(err)
	}
	d.Note = strings.Replace(d.Note, "\n3\n", "\n2\n", 1) // another tree, the same signature
	if err := upsert(ctx, f.leases, checkpointID, d); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Checkpoint(ctx); !todo.IsKind(err, todo.Internal) || checked.Load() != 1 {
		t.Fatalf("a stored note other than the one signed: %v after %d checks; want it checked and refused", err, checked.Load())
	}
}

// A log an earlier build wrote, an index document a version, goes on with
// the key set: its versions are found through their documents, none is
// appended again, the new ones are found through the key set alone, and
// the log's audit walks both; a damaged log's leaf is named by either.
func TestLeafIndexOfBothLayouts(t *testing.T) {
	f, old := loggedInto(t, documentFixture(t), LeafV2, "old", 300)
	ctx := context.Background()
	f.leafIndex = f.store.KeySet(LeafIndexSet)
	recs := append(old, chain(t, "alice", "new", 20)...)
	put(t, f.audit, recs[len(old):])
	put(t, f.audit, old[:5]) // written again: looked up, found by document
	if res := run(t, f.integrator()); res.Appended != 20 || res.Size != 320 {
		t.Fatalf("pass over both: %+v", res)
	}
	checkLog(t, f, recs)
	for _, r := range recs[len(old):] {
		if _, err := f.leases.Read(ctx, store.PartitionKey{indexID(r.EntityKey, r.Version)}, indexID(r.EntityKey, r.Version)); !todo.IsKind(err, todo.NotFound) {
			t.Fatalf("%s has an index document (%v)", r.ID, err)
		}
	}
	refs := []VersionRef{{old[0].EntityKey, 1}, {recs[len(old)].EntityKey, 1}, {old[0].EntityKey, 301}}
	if at, err := f.log().Locate(ctx, refs); err != nil || !slices.Equal(at, []int64{0, 300, -1}) {
		t.Fatalf("located at %v (%v)", at, err)
	}
	// A record of each layout deleted from the store: its leaf, which
	// names nothing, is named by its index entry.
	named, err := f.log().nameLeaves(ctx, map[int64]bool{1: true, 301: true}, map[string]bool{old[0].EntityKey: true, recs[len(old)].EntityKey: true})
	if err != nil || named[1].Version != 2 || named[301].Version != 2 || named[301].EntityID != "new" {
		t.Fatalf("named %+v (%v)", named, err)
	}
}
