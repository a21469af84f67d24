// Command loadtest measures the handler against the quality bars of the
// README's benchmark section, side by side in one run on one machine:
//
//   - readiness: time from process start to the first answer to GET / (the
//     host's readiness poll: the handler listens) and to the first 200 from
//     /api/health (the store is open and the API serves);
//   - point reads: GET /api/todos/{id} throughput of the handler on the
//     embedded store, against a bare net/http server (another process)
//     returning the same pre-encoded JSON, rounds interleaved;
//   - durable upserts: PUTs (each an fsynced batch with its version
//     document) per second from 32 concurrent clients;
//   - audit lag: from a create's acknowledgement to its version appearing in
//     the todo's history (through the change-feed pump), sampled during the
//     upsert load;
//   - create to signed checkpoint: from a create's acknowledgement until
//     its version's inclusion proof is served (a signed checkpoint holds
//     it), sampled every 100 ms under a steady 200 upserts/s;
//   - history paging: a point read's p99 alone and beside 8 clients paging
//     through a 5,000-version history, and how many whole walks they make.
//
// With -compare REV it also builds the handler of git revision REV from
// that revision's tree and measures it the same way in the same run,
// printing each measure for both builds.
//
// With -instructions it instead counts, under valgrind's callgrind, the
// instructions per request of the handler and of the bare server for a
// point read, a list page, a history page in each of its two forms, a
// create and updates from 1 and 32 clients:
// figures that do not move with the machine's load. With -store-bytes N
// it creates N todos (from 32 clients, or one every -every apart) and
// prints where the embedded store's bytes go. The wall-clock rounds end
// with the audit reads (verify of a 1,000-version history, export of a
// 10,000-version one); -audit-reads measures those alone.
//
// It only talks to servers it starts on 127.0.0.1, and every phase is
// bounded in time. Run it with make bench.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	var (
		duration = flag.Duration("duration", 3*time.Second, "length of each measured round")
		clients  = flag.Int("clients", 32, "concurrent clients")
		bin      = flag.String("handler", "", "handler binary (default: build ./handler)")
		compare  = flag.String("compare", "", "git revision whose handler is measured too, side by side (built from its tree)")
		baseline = flag.String("serve-baseline", "", "internal: serve the answers in this directory as the bare net/http baseline")
		bytesOf  = flag.Int("store-bytes", 0, "create this many todos on the embedded store and print where the file's bytes go, instead of the wall-clock rounds")
		every    = flag.Duration("every", 0, "with -store-bytes: create the todos one at a time, this far apart, instead of from 32 clients at once")
		counts   = flag.Bool("instructions", false, "count instructions per request under valgrind's callgrind instead of the wall-clock rounds")
		audit    = flag.Bool("audit-reads", false, "measure the audit reads (verify and export of long histories) alone, not the other wall-clock rounds")
		keep     = flag.String("callgrind-dir", "", "with -instructions: keep each workload's callgrind dump in this directory, for callgrind_annotate")
		listen   = flag.String("listen", "", "internal: baseline listen address")
	)
	flag.Parse()
	callgrindDir = *keep
	if *baseline != "" {
		serveBaseline(*baseline, *listen)
		return
	}
	if err := run(*bin, *compare, *duration, *clients, *counts, *audit, *bytesOf, *every); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

func run(bin, compare string, d time.Duration, clients int, counts, audit bool, todos int, every time.Duration) error {
	tmp, err := os.MkdirTemp("", "loadtest")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bs, err := builds(bin, compare, tmp)
	if err != nil {
		return err
	}
	if counts {
		return instructions(bs, tmp)
	}
	if todos > 0 {
		return storeBytesOf(bs, tmp, todos, every)
	}
	if audit {
		ar, err := auditReads(bs, tmp)
		if err == nil {
			reportAudit(bs, ar)
		}
		return err
	}
	fmt.Printf("loadtest: %d clients, %v rounds, GOMAXPROCS of this machine: %d cores\n\n", clients, d, numCPU())
	rs := make([]*results, len(bs))
	for i, b := range bs {
		fmt.Fprintf(os.Stderr, "loadtest: measuring %s\n", b.name)
		if rs[i], err = measure(b.bin, filepath.Join(tmp, fmt.Sprint("build", i)), d, clients); err != nil {
			return fmt.Errorf("%s: %w", b.name, err)
		}
	}
	if err := report(bs, rs); err != nil {
		return err
	}
	ar, err := auditReads(bs, tmp)
	if err != nil {
		return err
	}
	reportAudit(bs, ar)
	return nil
}

// results are one build's wall-clock measures.
type results struct {
	listening, ready []time.Duration // from the process start, 5 starts
	rss              []float64       // idle resident kB after each start
	base, hand       []float64       // point reads a second, bare server and handler, rounds interleaved
	upserts          float64         // durable upserts a second from all clients
	batches          float64         // the embedded store's own two-document batches a second, right after
	upsertCPU        time.Duration   // the handler's CPU time a durable upsert
	clientCPU        time.Duration   // the load clients' CPU time a durable upsert
	batchCPU         time.Duration   // CPU time a store batch
	lags, satLags    []time.Duration // upsert-to-audit lag at 2,000 upserts/s and at saturation
	signed           []time.Duration // create to signed checkpoint at 200 upserts/s
	alone, beside    []time.Duration // a point read's latency alone and beside 8 history walks
	walks            int64
}

// measure starts the handler bin with its data in dir and takes every
// wall-clock measure of it.
func measure(bin, dir string, d time.Duration, clients int) (*results, error) {
	r := &results{}
	// Readiness.
	for i := range 5 {
		l, ready, kb, err := readiness(bin, filepath.Join(dir, fmt.Sprint("ready", i)))
		if err != nil {
			return nil, err
		}
		r.listening, r.ready, r.rss = append(r.listening, l), append(r.ready, ready), append(r.rss, float64(kb))
	}

	h, err := startHandler(bin, filepath.Join(dir, "data"))
	if err != nil {
		return nil, err
	}
	defer h.stop()
	client := newClient(clients)
	id, body, etag, err := seed(client, h.base)
	if err != nil {
		return nil, err
	}
	bodyDir := filepath.Join(dir, "answers")
	if err := os.MkdirAll(bodyDir, 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(bodyDir, "GET-item"), body, 0o600); err != nil {
		return nil, err
	}
	b, err := startBaseline(bodyDir, etag)
	if err != nil {
		return nil, err
	}
	defer b.stop()

	// Point reads, rounds interleaved so both see the same machine.
	for range 3 {
		r.base = append(r.base, load(client, clients, d, func(c *http.Client, _ int) error { return get(c, b.base+"/api/todos/"+id) }))
		r.hand = append(r.hand, load(client, clients, d, func(c *http.Client, _ int) error { return get(c, h.base+"/api/todos/"+id) }))
	}

	// Durable upserts with the audit lag sampled meanwhile.
	ids := make([]string, clients)
	for i := range ids {
		ids[i], _, _, err = seed(client, h.base)
		if err != nil {
			return nil, err
		}
	}
	var n atomic.Int64
	upsert := func(c *http.Client, w int) error { return putTodo(c, h.base+"/api/todos/"+ids[w], n.Add(1)) }
	// The CPU time each side spends an upsert, the handler's and this
	// process's (its clients'), and the store's own a batch after.
	handlerCPU, err := meterCPU(func() (time.Duration, error) { return processCPU(h.cmd.Process.Pid) })
	if err != nil {
		return nil, err
	}
	clientCPU, err := meterCPU(ownCPU)
	if err != nil {
		return nil, err
	}
	r.upserts = load(client, clients, 2*d, upsert)
	if r.upsertCPU, err = handlerCPU.per(r.upserts); err != nil {
		return nil, err
	}
	if r.clientCPU, err = clientCPU.per(r.upserts); err != nil {
		return nil, err
	}
	// The embedded store's own rate of the write each upsert makes, from
	// as many writers, right after: the ceiling the upsert rate is held to.
	batchCPU, err := meterCPU(ownCPU)
	if err != nil {
		return nil, err
	}
	if r.batches, err = storeBatchRate(filepath.Join(dir, "store"), clients, 2*d); err != nil {
		return nil, err
	}
	if r.batchCPU, err = batchCPU.per(r.batches); err != nil {
		return nil, err
	}

	// Audit lag at the throughput the bar asks for (2,000 upserts/s from
	// all clients), and, for information, at saturation.
	r.lags = withProbe(client, h.base, func() { paced(client, clients, 2*d, 2000, upsert) })
	r.satLags = withProbe(client, h.base, func() { load(client, clients, 2*d, upsert) })
	// From a create to its version in a signed checkpoint, at a steady
	// 200 upserts/s.
	if r.signed, err = signedLag(client, h.base, 4*d, func() { paced(client, clients, 4*d, 200, upsert) }); err != nil {
		return nil, err
	}

	// Point reads beside clients paging through a long history.
	if r.alone, r.beside, r.walks, err = historyInterference(client, h.base, id, d); err != nil {
		return nil, err
	}
	return r, nil
}

// report prints each measure for every build, the first judged against
// its bar.
func report(bs []build, rs []*results) error {
	for i, r := range rs {
		if len(r.lags) == 0 || len(r.signed) == 0 {
			return fmt.Errorf("%s: no audit lag or signed-checkpoint samples", bs[i].name)
		}
	}
	fmt.Printf("%-46s", "measure")
	for _, b := range bs {
		fmt.Printf(" %18s", b.name)
	}
	fmt.Printf(" %16s\n", "bar")
	each := func(f func(r *results) string) []string {
		out := make([]string, len(rs))
		for i, r := range rs {
			out[i] = f(r)
		}
		return out
	}
	line := func(name string, got []string, bar string) {
		fmt.Printf("%-46s", name)
		for _, g := range got {
			fmt.Printf(" %18s", g)
		}
		fmt.Printf(" %16s", bar)
	}
	info := func(name string, f func(r *results) string) {
		line(name, each(f), "")
		fmt.Println()
	}
	row := func(name string, f func(r *results) string, bar string, ok func(r *results) bool) {
		line(name, each(f), bar)
		verdict := "PASS"
		if !ok(rs[0]) {
			verdict = "FAIL"
		}
		fmt.Printf(" %s\n", verdict)
	}
	startRow := func(name string, of func(r *results) []time.Duration, bar time.Duration) {
		row(name, func(r *results) string {
			ds := slices.Sorted(slices.Values(of(r)))
			return fmt.Sprintf("%v / %v", ds[len(ds)/2].Round(time.Millisecond/10), ds[len(ds)-1].Round(time.Millisecond/10))
		}, "max <= "+bar.String(), func(r *results) bool { return slices.Max(of(r)) <= bar })
	}
	readRatio := func(r *results) float64 { return median(r.hand) / median(r.base) }
	share := func(r *results) float64 { return r.upserts / r.batches }
	startRow("answers GET / after start (median / max of 5)", func(r *results) []time.Duration { return r.listening }, 100*time.Millisecond)
	startRow("/api/health 200 after start (median / max)", func(r *results) []time.Duration { return r.ready }, 200*time.Millisecond)
	info("idle RSS 2 s after /api/health 200 (MiB, median)", func(r *results) string { return fmt.Sprintf("%.1f", median(r.rss)/1024) })
	info("bare net/http, same JSON (req/s, median)", func(r *results) string { return fmt.Sprintf("%.0f", median(r.base)) })
	info("handler point read (req/s, median)", func(r *results) string { return fmt.Sprintf("%.0f", median(r.hand)) })
	row("point-read throughput vs bare net/http", func(r *results) string { return fmt.Sprintf("%.0f%%", 100*readRatio(r)) },
		">= 60%", func(r *results) bool { return readRatio(r) >= 0.6 })
	row("durable upserts, 32 clients (req/s)", func(r *results) string { return fmt.Sprintf("%.0f", r.upserts) },
		">= 2000", func(r *results) bool { return r.upserts >= 2000 })
	info("embedded store, two-document batches (/s)", func(r *results) string { return fmt.Sprintf("%.0f", r.batches) })
	// The leanness bar: about two thirds of the store's own rate.
	row("durable upserts vs the store's batch rate", func(r *results) string { return fmt.Sprintf("%.0f%%", 100*share(r)) },
		">= 65%", func(r *results) bool { return share(r) >= 0.65 })
	info("CPU a durable upsert, handler / clients (µs)", func(r *results) string {
		return fmt.Sprintf("%.0f / %.0f", micros(r.upsertCPU), micros(r.clientCPU))
	})
	info("CPU a store batch (µs)", func(r *results) string { return fmt.Sprintf("%.0f", micros(r.batchCPU)) })
	// What the cores allow if an upsert never waited: how far CPU alone
	// keeps the upsert rate from the leanness bar.
	info("upserts a second the cores allow (share)", func(r *results) string {
		most := float64(numCPU()) / (r.upsertCPU + r.clientCPU).Seconds()
		return fmt.Sprintf("%.0f (%.0f%%)", most, 100*most/r.batches)
	})
	info("upsert-to-audit lag p50 at 2,000 upserts/s", func(r *results) string { return percentile(r.lags, 50).String() })
	row("upsert-to-audit lag p99 at 2,000 upserts/s", func(r *results) string { return percentile(r.lags, 99).String() },
		"<= 250ms", func(r *results) bool { return percentile(r.lags, 99) <= 250*time.Millisecond })
	info("upsert-to-audit lag p50 / p99 at saturation", func(r *results) string {
		if len(r.satLags) == 0 {
			return "no samples"
		}
		return fmt.Sprintf("%v / %v", percentile(r.satLags, 50), percentile(r.satLags, 99))
	})
	row("create to signed checkpoint p50, 200 upserts/s", func(r *results) string { return percentile(r.signed, 50).String() },
		"<= 300ms", func(r *results) bool { return percentile(r.signed, 50) <= 300*time.Millisecond })
	row("create to signed checkpoint p99, 200 upserts/s", func(r *results) string {
		return fmt.Sprintf("%v (%d)", percentile(r.signed, 99), len(r.signed))
	}, "<= 1s", func(r *results) bool { return percentile(r.signed, 99) <= time.Second })
	info("point read p99 beside 8 history walks", func(r *results) string {
		return fmt.Sprintf("%v (%v)", percentile(r.beside, 99), percentile(r.alone, 99))
	})
	info(fmt.Sprintf("whole-history walks (%d versions, 20 a page)", historyVersions), func(r *results) string { return fmt.Sprint(r.walks) })
	return nil
}

// historyVersions is the length of the history the interference phase
// pages through.
const historyVersions = 5000

// historyInterference gives one todo historyVersions versions, waits until
// its history holds them all, then measures one client's point reads of
// the todo id for d alone and for d beside 8 clients paging through that
// history from the start, over and over. It returns both sets of latencies
// and the number of whole walks the 8 finished.
func historyInterference(c *http.Client, base, id string, d time.Duration) (alone, beside []time.Duration, walks int64, err error) {
	hid, _, _, err := seed(c, base)
	if err != nil {
		return nil, nil, 0, err
	}
	for n := int64(2); n <= historyVersions; n++ {
		if err := putTodo(c, base+"/api/todos/"+hid, n); err != nil {
			return nil, nil, 0, err
		}
	}
	deadline := time.Now().Add(time.Minute)
	for {
		n, err := walkHistory(c, base, hid, 100, nil)
		if err != nil {
			return nil, nil, 0, err
		}
		if n >= historyVersions {
			break
		}
		if time.Now().After(deadline) {
			return nil, nil, 0, fmt.Errorf("history holds %d of %d versions after a minute", n, historyVersions)
		}
		time.Sleep(100 * time.Millisecond)
	}
	reads := func() []time.Duration {
		var ds []time.Duration
		for stop := time.Now().Add(d); time.Now().Before(stop); {
			start := time.Now()
			if get(c, base+"/api/todos/"+id) == nil {
				ds = append(ds, time.Since(start))
			}
		}
		return ds
	}
	alone = reads()
	var stop atomic.Bool
	var done atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if n, err := walkHistory(c, base, hid, 20, &stop); err == nil && n >= historyVersions {
					done.Add(1)
				}
			}
		}()
	}
	beside = reads()
	stop.Store(true)
	wg.Wait()
	return alone, beside, done.Load(), nil
}

// walkHistory reads a todo's history page by page until its end, or until
// stop is set, and returns how many versions it read.
func walkHistory(c *http.Client, base, id string, pageSize int, stop *atomic.Bool) (int, error) {
	n, cont := 0, ""
	for {
		url := fmt.Sprintf("%s/api/todos/%s/history?pageSize=%d", base, id, pageSize)
		if cont != "" {
			url += "&continuation=" + cont
		}
		resp, err := c.Get(url)
		if err != nil {
			return n, err
		}
		var page struct {
			Items        []json.RawMessage
			Continuation string
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			return n, fmt.Errorf("history page: %d %v", resp.StatusCode, err)
		}
		n += len(page.Items)
		if cont = page.Continuation; cont == "" || (stop != nil && stop.Load()) {
			return n, nil
		}
	}
}

func numCPU() int { return runtimeNumCPU() }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func newClient(conns int) *http.Client {
	return &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			MaxIdleConns:        conns * 2,
			MaxIdleConnsPerHost: conns * 2,
			DisableCompression:  true,
		},
	}
}

type proc struct {
	cmd  *exec.Cmd
	base string
}

func (p *proc) stop() {
	_ = p.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
	}
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func startHandler(bin, dir string) (*proc, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "LISTEN_ADDR="+addr, "DATA_DIR="+dir, "AUTH_MODE=dev")
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, base: "http://" + addr}
	return p, waitFor(p.base+"/api/health", 10*time.Second)
}

func startBaseline(body, etag string) (*proc, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-serve-baseline", body, "-listen", addr)
	cmd.Env = append(os.Environ(), "BASELINE_ETAG="+etag)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, base: "http://" + addr}
	return p, waitFor(p.base+"/", 10*time.Second)
}

// serveBaseline is the bare net/http server: the same JSON bytes and
// headers the handler answered, with no routing, store or logging. dir
// holds one answer per kind of request, named by method and by whether
// the path is the collection ("list"), a todo's history ("history") or one
// todo ("item"); GET-item answers any request of a kind dir has no file
// for.
func serveBaseline(dir, addr string) {
	answers := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		answers[e.Name()] = b
	}
	etag := os.Getenv("BASELINE_ETAG")
	srv := &http.Server{Addr: addr, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kind := "item"
		switch {
		case r.URL.Path == "/api/todos":
			kind = "list"
		case strings.HasSuffix(r.URL.Path, "/history") && r.URL.Query().Get("form") == "2":
			kind = "history2"
		case strings.HasSuffix(r.URL.Path, "/history"):
			kind = "history"
		}
		body, ok := answers[r.Method+"-"+kind]
		if !ok {
			body = answers["GET-item"]
		}
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("ETag", etag)
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
		}
		_, _ = w.Write(body)
	})}
	go func() {
		sig := make(chan os.Signal, 1)
		notifyInterrupt(sig)
		<-sig
		_ = srv.Close()
	}()
	_ = srv.ListenAndServe()
}

func waitFor(url string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return fmt.Errorf("%s did not answer within %v", url, limit)
}

// readiness starts the handler and times, from the process start, the
// first answer to GET / (it listens) and the first 200 from /api/health
// (it serves the API); then it reads the process's resident memory (kB)
// after 2 s idle.
func readiness(bin, dir string) (listening, ready time.Duration, rssKB int, err error) {
	addr, err := freeAddr()
	if err != nil {
		return 0, 0, 0, err
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "LISTEN_ADDR="+addr, "DATA_DIR="+dir)
	c := &http.Client{Timeout: time.Second}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, err
	}
	defer (&proc{cmd: cmd}).stop()
	for time.Since(start) < 10*time.Second {
		if resp, err := c.Get("http://" + addr + "/"); err == nil {
			resp.Body.Close()
			listening = time.Since(start)
			break
		}
		time.Sleep(200 * time.Microsecond)
	}
	if listening == 0 {
		return 0, 0, 0, fmt.Errorf("handler not listening after 10s")
	}
	for time.Since(start) < 10*time.Second {
		if resp, err := c.Get("http://" + addr + "/api/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				ready = time.Since(start)
				time.Sleep(2 * time.Second)
				rssKB, err = residentKB(cmd.Process.Pid)
				return listening, ready, rssKB, err
			}
		}
		time.Sleep(200 * time.Microsecond)
	}
	return 0, 0, 0, fmt.Errorf("/api/health not 200 after 10s")
}

func seed(c *http.Client, base string) (id string, body []byte, etag string, err error) {
	created, err := sendPost(c, base)
	if err != nil {
		return "", nil, "", err
	}
	var td struct{ ID string }
	if err := json.Unmarshal(created, &td); err != nil {
		return "", nil, "", fmt.Errorf("seed: %v", err)
	}
	r, err := c.Get(base + "/api/todos/" + td.ID)
	if err != nil {
		return "", nil, "", err
	}
	defer r.Body.Close()
	body, err = io.ReadAll(r.Body)
	return td.ID, body, r.Header.Get("ETag"), err
}

func get(c *http.Client, url string) error {
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("GET %s: %d", url, resp.StatusCode)
	}
	return nil
}

func putTodo(c *http.Client, url string, n int64) error {
	_, err := sendPut(c, url, n)
	return err
}

// sendPut replaces the todo at url with version n's title and returns the
// answer's body.
func sendPut(c *http.Client, url string, n int64) ([]byte, error) {
	req, _ := http.NewRequest(http.MethodPut, url, bytes.NewReader(fmt.Appendf(nil, `{"category":"Grocery","title":"update %d"}`, n)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("PUT %s: %d", url, resp.StatusCode)
	}
	return b, err
}

// load runs fn from n workers for d and returns completed calls per second.
func load(c *http.Client, n int, d time.Duration, fn func(c *http.Client, worker int) error) float64 {
	var done atomic.Int64
	var failed atomic.Int64
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				if err := fn(c, w); err != nil {
					failed.Add(1)
					continue
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		fmt.Fprintf(os.Stderr, "loadtest: %d failed calls\n", f)
	}
	return float64(done.Load()) / time.Since(start).Seconds()
}

func percentile(xs []time.Duration, p int) time.Duration {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)].Round(time.Millisecond / 10)
}

// withProbe runs work while probing the audit lag, once the audit has
// caught up with earlier phases.
func withProbe(c *http.Client, base string, work func()) []time.Duration {
	settle, cancelSettle := context.WithTimeout(context.Background(), time.Minute)
	probeOnce(settle, c, base)
	cancelSettle()
	ctx, cancel := context.WithCancel(context.Background())
	lagc := make(chan []time.Duration)
	go func() { lagc <- probeLag(ctx, c, base) }()
	work()
	cancel()
	return <-lagc
}

// paced runs fn from n workers for d at rate calls per second in all.
func paced(c *http.Client, n int, d time.Duration, rate float64, fn func(c *http.Client, worker int) error) {
	interval := time.Duration(float64(n) / rate * float64(time.Second))
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			next := time.Now().Add(time.Duration(w) * interval / time.Duration(n))
			for next.Before(stop) {
				time.Sleep(time.Until(next))
				_ = fn(c, w)
				next = next.Add(interval)
			}
		}()
	}
	wg.Wait()
}

// probeLag creates a todo, then polls its history until version 1 is
// there, over and over until ctx ends.
func probeLag(ctx context.Context, c *http.Client, base string) []time.Duration {
	var lags []time.Duration
	for ctx.Err() == nil {
		if lag, ok := probeOnce(ctx, c, base); ok {
			lags = append(lags, lag)
		}
	}
	return lags
}

// probeOnce creates a todo and waits until its history shows version 1.
func probeOnce(ctx context.Context, c *http.Client, base string) (time.Duration, bool) {
	id, _, _, err := seed(c, base)
	if err != nil {
		return 0, false
	}
	acked := time.Now()
	for ctx.Err() == nil {
		resp, err := c.Get(base + "/api/todos/" + id + "/history")
		if err == nil {
			var h struct{ Items []json.RawMessage }
			_ = json.NewDecoder(resp.Body).Decode(&h)
			resp.Body.Close()
			if len(h.Items) > 0 {
				return time.Since(acked), true
			}
		}
		time.Sleep(time.Millisecond)
	}
	return 0, false
}

// signedLag runs work, which lasts d, while every 100 ms a probe creates
// a todo and polls until the inclusion proof of its first version is
// served: until a signed checkpoint holds it. It returns each probe's
// time from the create's acknowledgement; a probe still waiting after
// signedWait counts as signedWait. It starts once the log has caught up
// with earlier phases.
func signedLag(c *http.Client, base string, d time.Duration, work func()) ([]time.Duration, error) {
	if _, ok := probeSigned(c, base, 2*time.Minute); !ok {
		return nil, fmt.Errorf("a create's version is not in a signed checkpoint after 2 minutes")
	}
	done := make(chan struct{})
	go func() { defer close(done); work() }()
	var mu sync.Mutex
	var lags []time.Duration
	var wg sync.WaitGroup
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for stop := time.Now().Add(d); time.Now().Before(stop); <-tick.C {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lag, _ := probeSigned(c, base, signedWait)
			mu.Lock()
			lags = append(lags, lag)
			mu.Unlock()
		}()
	}
	wg.Wait()
	<-done
	return lags, nil
}

// signedWait bounds a probe of signedLag.
const signedWait = 30 * time.Second

// probeSigned creates a todo and polls, for at most limit, until the
// inclusion proof of its first version is served; it returns the time
// from the create's acknowledgement, and whether the proof came.
func probeSigned(c *http.Client, base string, limit time.Duration) (time.Duration, bool) {
	created, err := sendPost(c, base)
	acked := time.Now()
	var td struct{ ID string }
	if err != nil || json.Unmarshal(created, &td) != nil {
		return limit, false
	}
	for time.Since(acked) < limit {
		resp, err := c.Get(base + "/api/todos/" + td.ID + "/history/proof?version=1")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Since(acked), true
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return limit, false
}
