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
//   - history paging: a point read's p99 alone and beside 8 clients paging
//     through a 5,000-version history, and how many whole walks they make.
//
// With -instructions it instead counts, under valgrind's callgrind, the
// instructions per request of the handler and of the bare server for a
// point read, a list page, a create and updates from 1 and 32 clients:
// figures that do not move with the machine's load. With -store-bytes N
// it creates N todos (from 32 clients, or one every -every apart) and
// prints where the embedded store's bytes go.
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
		baseline = flag.String("serve-baseline", "", "internal: serve the answers in this directory as the bare net/http baseline")
		bytesOf  = flag.Int("store-bytes", 0, "create this many todos on the embedded store and print where the file's bytes go, instead of the wall-clock rounds")
		every    = flag.Duration("every", 0, "with -store-bytes: create the todos one at a time, this far apart, instead of from 32 clients at once")
		counts   = flag.Bool("instructions", false, "count instructions per request under valgrind's callgrind instead of the wall-clock rounds")
		keep     = flag.String("callgrind-dir", "", "with -instructions: keep each workload's callgrind dump in this directory, for callgrind_annotate")
		listen   = flag.String("listen", "", "internal: baseline listen address")
	)
	flag.Parse()
	callgrindDir = *keep
	if *baseline != "" {
		serveBaseline(*baseline, *listen)
		return
	}
	if err := run(*bin, *duration, *clients, *counts, *bytesOf, *every); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

func run(bin string, d time.Duration, clients int, counts bool, todos int, every time.Duration) error {
	tmp, err := os.MkdirTemp("", "loadtest")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if bin == "" {
		bin = filepath.Join(tmp, "handler")
		build := exec.Command("go", "build", "-o", bin, "./handler")
		build.Env = append(os.Environ(), "CGO_ENABLED=0") // as make stage builds it; callgrind needs it
		if out, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("build: %v: %s", err, out)
		}
	}
	if counts {
		return instructions(bin, tmp)
	}
	if todos > 0 {
		return storeBytes(bin, tmp, todos, every)
	}
	fmt.Printf("loadtest: %d clients, %v rounds, GOMAXPROCS of this machine: %d cores\n\n", clients, d, numCPU())

	// Readiness.
	var listening, ready []time.Duration
	var rss []float64
	for i := range 5 {
		l, r, kb, err := readiness(bin, filepath.Join(tmp, fmt.Sprint("ready", i)))
		if err != nil {
			return err
		}
		listening, ready, rss = append(listening, l), append(ready, r), append(rss, float64(kb))
	}

	h, err := startHandler(bin, filepath.Join(tmp, "data"))
	if err != nil {
		return err
	}
	defer h.stop()
	client := newClient(clients)
	id, body, etag, err := seed(client, h.base)
	if err != nil {
		return err
	}
	bodyDir := filepath.Join(tmp, "answers")
	if err := os.MkdirAll(bodyDir, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(bodyDir, "GET-item"), body, 0o600); err != nil {
		return err
	}
	b, err := startBaseline(bodyDir, etag)
	if err != nil {
		return err
	}
	defer b.stop()

	// Point reads, rounds interleaved so both see the same machine.
	var base, hand []float64
	for range 3 {
		base = append(base, load(client, clients, d, func(c *http.Client, _ int) error { return get(c, b.base+"/api/todos/"+id) }))
		hand = append(hand, load(client, clients, d, func(c *http.Client, _ int) error { return get(c, h.base+"/api/todos/"+id) }))
	}

	// Durable upserts with the audit lag sampled meanwhile.
	ids := make([]string, clients)
	for i := range ids {
		ids[i], _, _, err = seed(client, h.base)
		if err != nil {
			return err
		}
	}
	var n atomic.Int64
	upsert := func(c *http.Client, w int) error { return putTodo(c, h.base+"/api/todos/"+ids[w], n.Add(1)) }
	upserts := load(client, clients, 2*d, upsert)
	// The embedded store's own rate of the write each upsert makes, from
	// as many writers, right after: the ceiling the upsert rate is held to.
	batches, err := storeBatchRate(filepath.Join(tmp, "store"), clients, 2*d)
	if err != nil {
		return err
	}

	// Audit lag at the throughput the bar asks for (2,000 upserts/s from
	// all clients), and, for information, at saturation.
	lags := withProbe(client, h.base, func() { paced(client, clients, 2*d, 2000, upsert) })
	satLags := withProbe(client, h.base, func() { load(client, clients, 2*d, upsert) })

	// Point reads beside clients paging through a long history.
	alone, beside, walks, err := historyInterference(client, h.base, id, d)
	if err != nil {
		return err
	}

	readRatio := median(hand) / median(base)
	fmt.Printf("%-46s %18s %16s %s\n", "measure", "result", "bar", "")
	row := func(name, got, bar string, ok bool) {
		verdict := "PASS"
		if !ok {
			verdict = "FAIL"
		}
		fmt.Printf("%-46s %18s %16s %s\n", name, got, bar, verdict)
	}
	slices.Sort(listening)
	slices.Sort(ready)
	startRow := func(name string, ds []time.Duration, bar time.Duration) {
		worst := ds[len(ds)-1]
		got := fmt.Sprintf("%v / %v", ds[len(ds)/2].Round(time.Millisecond/10), worst.Round(time.Millisecond/10))
		row(name, got, "max <= "+bar.String(), worst <= bar)
	}
	startRow("answers GET / after start (median / max of 5)", listening, 100*time.Millisecond)
	startRow("/api/health 200 after start (median / max)", ready, 200*time.Millisecond)
	fmt.Printf("%-46s %15.1f MiB\n", "idle RSS 2 s after /api/health 200 (median)", median(rss)/1024)
	fmt.Printf("%-46s %18.0f\n", "bare net/http, same JSON (req/s, median)", median(base))
	fmt.Printf("%-46s %18.0f\n", "handler point read (req/s, median)", median(hand))
	row("point-read throughput vs bare net/http", fmt.Sprintf("%.0f%%", 100*readRatio), ">= 60%", readRatio >= 0.6)
	row("durable upserts, 32 clients (req/s)", fmt.Sprintf("%.0f", upserts), ">= 2000", upserts >= 2000)
	fmt.Printf("%-46s %18.0f\n", "embedded store, two-document batches (/s)", batches)
	// The leanness bar: half the store's own rate, or 3,500/s where the
	// machine gives the store far more than the handler can use.
	row("durable upserts vs the store's batch rate", fmt.Sprintf("%.0f%%", 100*upserts/batches), ">= 50% or 3500/s", upserts >= batches/2 || upserts >= 3500)
	if len(lags) == 0 {
		return fmt.Errorf("no audit lag samples")
	}
	slices.Sort(lags)
	p50, p99 := percentile(lags, 50), percentile(lags, 99)
	fmt.Printf("%-46s %18s   (%d samples)\n", "upsert-to-audit lag p50 at 2,000 upserts/s", p50, len(lags))
	row("upsert-to-audit lag p99 at 2,000 upserts/s", p99.String(), "<= 250ms", p99 <= 250*time.Millisecond)
	if len(satLags) > 0 {
		fmt.Printf("%-46s %18s   (p99 %v, %d samples)\n", "upsert-to-audit lag p50 at saturation", percentile(satLags, 50), percentile(satLags, 99), len(satLags))
	}
	fmt.Printf("%-46s %18s   (%v alone)\n", "point read p99 beside 8 history walks", percentile(beside, 99), percentile(alone, 99))
	fmt.Printf("%-46s %18d   (%d versions, 20 a page)\n", "whole-history walks in that time", walks, historyVersions)
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
