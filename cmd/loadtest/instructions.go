package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// An instruction count is what a request costs in a way that does not move
// with the machine's load: the server process runs under valgrind's
// callgrind, its counters are zeroed once it serves and a workload's setup
// is done, the workload's requests are sent over keep-alive loopback
// connections, and the counters are dumped. Every thread of the process is
// counted, the catch-up of the audit pump and of the log's integrator
// included: a write workload ends only once /api/health reports no audit
// lag and the log's checkpoint holds a leaf for every write. An idle
// window of the same
// length, measured the same way, is subtracted, so what remains is per
// request.

// callgrindDir, when set, keeps the dump of every measured window there
// (named after the server and the window's number) instead of removing it.
var callgrindDir string

// settle is how long the seeds' background work (the log's integrator
// runs once a second, far slower under callgrind) is given to finish.
const settle = 15 * time.Second

// workload is one kind of request, sent n times from clients connections.
type workload struct {
	name    string
	clients int
	n       int
	// send sends request i of worker w to base.
	send func(c *http.Client, base string, w, i int) error
	// write: wait for the audit to catch up before the counters are read.
	write bool
	// windows is how many times the handler's count is taken, one after
	// another, when more than once: a workload's share of the garbage
	// collector's cycles depends on where in a cycle its window falls, so
	// the count of one window moves by several percent from run to run,
	// and the median of a few does not.
	windows int
	// between, when set, runs before each window but the first, outside
	// any.
	between func() error
}

// instructionRow is one workload's count per request on a handler: the
// median of its windows.
type instructionRow struct {
	name    string
	handler float64
	windows []float64
}

// instructions measures each handler build and the bare net/http server
// under callgrind and prints instructions per request for each workload,
// a column for each.
func instructions(bs []build, tmp string) error {
	if _, err := exec.LookPath("valgrind"); err != nil {
		return fmt.Errorf("instruction counts need valgrind (apt-get install -y valgrind)")
	}
	rows := make([][]instructionRow, len(bs))
	var works []workload
	var answers map[string][]byte
	for i, b := range bs {
		name := "handler"
		if i > 0 {
			name += "-" + b.name
		}
		w, a, r, err := countHandler(b.bin, tmp, name)
		if err != nil {
			return fmt.Errorf("%s: %w", b.name, err)
		}
		rows[i] = r
		if i == 0 {
			works, answers = w, a
		}
	}

	// The bare server answers each request with the bytes the first
	// build gave the same request.
	bareDir := filepath.Join(tmp, "bare")
	if err := os.MkdirAll(bareDir, 0o700); err != nil {
		return err
	}
	for name, b := range answers {
		if err := os.WriteFile(filepath.Join(bareDir, name), b, 0o600); err != nil {
			return err
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	b, err := startCounted(self, tmp, "bare", nil, "/", "-serve-baseline", bareDir, "-listen")
	if err != nil {
		return err
	}
	defer b.stop()
	c := newClient(32)
	c.Timeout = 2 * time.Minute
	bare := make([]float64, len(works))
	for i, wk := range works {
		wk.write = false
		if bare[i], err = b.count(c, wk); err != nil {
			return fmt.Errorf("bare server, %s: %w", wk.name, err)
		}
	}
	b.stop()

	fmt.Printf("\ninstructions per request (valgrind --tool=callgrind, whole process, idle subtracted)\n")
	fmt.Printf("%-46s", "request")
	for _, b := range bs {
		fmt.Printf(" %12s %8s", b.name, "ratio")
	}
	fmt.Printf(" %12s\n", "bare")
	for i, wk := range works {
		fmt.Printf("%-46s", wk.name)
		for _, r := range rows {
			fmt.Printf(" %12.0f %7.2fx", r[i].handler, r[i].handler/bare[i])
		}
		fmt.Printf(" %12.0f", bare[i])
		for j, r := range rows {
			if ws := r[i].windows; len(ws) > 1 {
				fmt.Printf("   (%s: median of %d windows, %.0f to %.0f)", bs[j].name, len(ws), slices.Min(ws), slices.Max(ws))
			}
		}
		fmt.Println()
	}
	return nil
}

// countHandler counts the handler bin's instructions per request for each
// workload, seeded outside any measured window, under callgrind with its
// output named after name. It returns the workloads, the answers the bare
// server is to give them (by the name serveBaseline reads) and the rows.
func countHandler(bin, tmp, name string) ([]workload, map[string][]byte, []instructionRow, error) {
	h, err := startCounted(bin, tmp, name, []string{"DATA_DIR=" + filepath.Join(tmp, "counted-"+name), "AUTH_MODE=dev"}, "/api/health")
	if err != nil {
		return nil, nil, nil, err
	}
	defer h.stop()
	c := newClient(32)
	c.Timeout = 2 * time.Minute // 32 writers queue behind one another under callgrind
	if h.logs, err = keepsLog(c, h.base); err != nil {
		return nil, nil, nil, err
	}
	seeds, err := seedCounted(c, h.base)
	if err != nil {
		return nil, nil, nil, err
	}
	works := seeds.workloads(c, h.base)
	rows, err := h.countAll(c, name, works)
	return works, seeds.answers, rows, err
}

// countedSeeds are the todos the counted workloads read and write, and
// the answers they are measured against.
type countedSeeds struct {
	id                  string   // read and updated by one client
	ids                 []string // updated by 32 clients, one each
	listURL, historyURL string
	// formURL is the history page in its second form, the records with
	// their seeds: historyURL on a build that has only the first.
	formURL string
	answers map[string][]byte
}

// seedCounted writes the todos the workloads need, each request's answer
// kept, and waits for their audit and log entries, which are background
// work of their own that the first window would otherwise count.
func seedCounted(c *http.Client, base string) (*countedSeeds, error) {
	s := &countedSeeds{ids: make([]string, 32), listURL: "/api/todos?pageSize=20"}
	id, body, _, err := seed(c, base)
	if err != nil {
		return nil, err
	}
	s.id = id
	for i := range s.ids {
		if s.ids[i], _, _, err = seed(c, base); err != nil {
			return nil, err
		}
	}
	listBody, err := fetchBody(c, base+s.listURL)
	if err != nil {
		return nil, err
	}
	// A todo with 21 versions, so that the first page of its history
	// holds 20, each checked against its hash and with its changes.
	hid, _, _, err := seed(c, base)
	if err != nil {
		return nil, err
	}
	for n := range int64(20) {
		if _, err := sendPut(c, base+"/api/todos/"+hid, n+1); err != nil {
			return nil, err
		}
	}
	s.historyURL = "/api/todos/" + hid + "/history?pageSize=20"
	putBody, err := sendPut(c, base+"/api/todos/"+id, 1)
	if err != nil {
		return nil, err
	}
	postBody, err := sendPost(c, base)
	if err != nil {
		return nil, err
	}
	if err := waitAudit(c, base); err != nil {
		return nil, err
	}
	time.Sleep(settle)
	historyBody, err := fetchBody(c, base+s.historyURL)
	if err != nil {
		return nil, err
	}
	s.formURL = s.historyURL + "&form=2"
	formBody, err := fetchBody(c, base+s.formURL)
	var refused *statusError
	if errors.As(err, &refused) && refused.status == http.StatusBadRequest {
		s.formURL, formBody, err = s.historyURL, historyBody, nil
	}
	if err != nil {
		return nil, err
	}
	s.answers = map[string][]byte{"GET-item": body, "GET-list": listBody, "GET-history": historyBody, "GET-history2": formBody, "PUT-item": putBody, "POST-list": postBody}
	return s, nil
}

// workloads are the requests counted, over the seeded todos.
func (s *countedSeeds) workloads(c *http.Client, base string) []workload {
	var version [32]int64
	var mu sync.Mutex
	put := func(c *http.Client, base string, w, _ int) error {
		mu.Lock()
		version[w]++
		n := version[w]
		mu.Unlock()
		_, err := sendPut(c, base+"/api/todos/"+s.ids[w], n)
		return err
	}
	return []workload{
		{name: "point read (GET /api/todos/{id}), 1 client", clients: 1, n: 2000, send: func(c *http.Client, base string, _, _ int) error {
			return get(c, base+"/api/todos/"+s.id)
		}},
		{name: "list page (GET /api/todos, 20 todos)", clients: 1, n: 500, send: func(c *http.Client, base string, _, _ int) error {
			return get(c, base+s.listURL)
		}},
		{name: "history page (GET /api/todos/{id}/history, 20)", clients: 1, n: 100, windows: 3, send: func(c *http.Client, base string, _, _ int) error {
			return get(c, base+s.historyURL)
		}},
		{name: "history page, second form (…/history?form=2, 20)", clients: 1, n: 100, windows: 3, send: func(c *http.Client, base string, _, _ int) error {
			return get(c, base+s.formURL)
		}},
		{name: "create (POST /api/todos), 1 client", clients: 1, n: 300, write: true, send: func(c *http.Client, base string, _, _ int) error {
			_, err := sendPost(c, base)
			return err
		}},
		{name: "update (PUT /api/todos/{id}), 1 client", clients: 1, n: 300, write: true, send: put},
		{name: "update (PUT /api/todos/{id}), 32 clients", clients: 32, n: 640, write: true, send: put, windows: 3, between: func() error {
			// Each window updates 32 todos of its own, so that every
			// window writes the same versions (2 to 21) as the first,
			// not versions of ever longer histories.
			for i := range s.ids {
				id, _, _, err := seed(c, base)
				if err != nil {
					return err
				}
				s.ids[i] = id
			}
			if err := waitAudit(c, base); err != nil {
				return err
			}
			time.Sleep(settle)
			return nil
		}},
	}
}

// countAll counts each workload's instructions in its windows, the row's
// figure their median.
func (p *counted) countAll(c *http.Client, name string, works []workload) ([]instructionRow, error) {
	rows := make([]instructionRow, len(works))
	for i, wk := range works {
		rows[i].name = wk.name
		rows[i].windows = make([]float64, max(wk.windows, 1))
		for j := range rows[i].windows {
			if j > 0 && wk.between != nil {
				if err := wk.between(); err != nil {
					return nil, fmt.Errorf("%s, before a window of %s: %w", name, wk.name, err)
				}
			}
			var err error
			if rows[i].windows[j], err = p.count(c, wk); err != nil {
				return nil, fmt.Errorf("%s, %s: %w", name, wk.name, err)
			}
			fmt.Printf("%s, %s: %.0f\n", name, wk.name, rows[i].windows[j])
		}
		rows[i].handler = median(rows[i].windows)
	}
	return rows, nil
}

// counted is a server process running under callgrind.
type counted struct {
	proc
	out  string // the callgrind output file prefix
	dump int    // dumps taken so far
	// logs says the server keeps a transparency log, whose catch-up a
	// write workload's window waits for.
	logs bool
}

// startCounted starts bin under callgrind with env, listening on a free
// address given as LISTEN_ADDR or, when args is non-empty, as the value of
// the last flag in args; it waits until ready answers 200.
func startCounted(bin, tmp, name string, env []string, ready string, args ...string) (*counted, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	out := filepath.Join(tmp, "callgrind."+name)
	vargs := []string{"--tool=callgrind", "--callgrind-out-file=" + out, "--dump-line=no", bin}
	if len(args) > 0 {
		vargs = append(vargs, append(args, addr)...)
	}
	cmd := exec.Command("valgrind", vargs...)
	// Callgrind cannot follow the signals of Go's asynchronous preemption.
	// It runs one thread at a time anyway: with one P, no idle thread
	// spins looking for work, which made counts move by a tenth from run
	// to run. Its CPU reports RDTSCP, which valgrind cannot execute on a
	// host whose CPU lacks it (some virtual machines): the runtime, which
	// reads the time with it when a lock makes a thread wait, then dies
	// of SIGILL; cpu.rdtscp=off has it use RDTSC.
	cmd.Env = append(append(os.Environ(), "LISTEN_ADDR="+addr, "GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off", "GOMAXPROCS=1"), env...)
	cmd.Stderr = &bytes.Buffer{}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &counted{proc: proc{cmd: cmd, base: "http://" + addr}, out: out}
	if err := waitFor(p.base+ready, 2*time.Minute); err != nil {
		p.stop()
		return nil, fmt.Errorf("%s under valgrind: %w: %s", name, err, cmd.Stderr)
	}
	return p, nil
}

// count returns wk's instructions per request.
func (p *counted) count(c *http.Client, wk workload) (float64, error) {
	var logged int64
	if wk.write && p.logs {
		var err error
		if logged, err = logSize(c, p.base); err != nil {
			return 0, err
		}
	}
	if err := p.control("--zero"); err != nil {
		return 0, err
	}
	start := time.Now()
	if err := sendAll(c, p.base, wk); err != nil {
		return 0, err
	}
	if wk.write {
		// Each write is one version: its audit record, and its leaf in
		// the log, are counted with it.
		if err := waitAudit(c, p.base); err != nil {
			return 0, err
		}
		if p.logs {
			if err := waitLog(c, p.base, logged+int64(wk.n)); err != nil {
				return 0, err
			}
		}
	}
	window := time.Since(start)
	busy, err := p.read()
	if err != nil {
		return 0, err
	}
	if err := p.control("--zero"); err != nil {
		return 0, err
	}
	time.Sleep(window)
	idle, err := p.read()
	if err != nil {
		return 0, err
	}
	return float64(busy-idle) / float64(wk.n), nil
}

// control sends one callgrind_control command to the process.
func (p *counted) control(arg string) error {
	out, err := exec.Command("callgrind_control", arg, strconv.Itoa(p.cmd.Process.Pid)).CombinedOutput()
	if err != nil {
		return fmt.Errorf("callgrind_control %s: %v: %s", arg, err, out)
	}
	return nil
}

// read dumps the counters and returns the instructions since they were
// last zeroed.
func (p *counted) read() (int64, error) {
	if err := p.control("--dump"); err != nil {
		return 0, err
	}
	p.dump++
	file := fmt.Sprintf("%s.%d", p.out, p.dump)
	f, err := os.Open(file)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if callgrindDir == "" {
		defer os.Remove(file)
	} else {
		defer os.Rename(file, filepath.Join(callgrindDir, filepath.Base(file)))
	}
	var total int64
	found := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// One "totals:" line per thread's part of the dump.
		if v, ok := strings.CutPrefix(sc.Text(), "totals: "); ok {
			n, err := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			if err != nil {
				return 0, err
			}
			total += n
			found = true
		}
	}
	if !found {
		return 0, fmt.Errorf("%s: no totals line", file)
	}
	return total, sc.Err()
}

// sendAll sends wk's n requests from its clients, each worker its share.
func sendAll(c *http.Client, base string, wk workload) error {
	errs := make(chan error, wk.clients)
	var wg sync.WaitGroup
	for w := range wk.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < wk.n; i += wk.clients {
				if err := wk.send(c, base, w, i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// waitAudit waits until /api/health reports no audit lag.
func waitAudit(c *http.Client, base string) error {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		resp, err := c.Get(base + "/api/health")
		if err != nil {
			return err
		}
		var h struct {
			Audit struct{ LagSeconds *float64 }
		}
		err = json.NewDecoder(resp.Body).Decode(&h)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if h.Audit.LagSeconds != nil && *h.Audit.LagSeconds == 0 {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("audit lag not 0 after 2 minutes")
}

// keepsLog reports whether the handler keeps a transparency log: with
// TRANSPARENCY_LOG=off it serves no /api/log.
func keepsLog(c *http.Client, base string) (bool, error) {
	resp, err := c.Get(base + "/api/log/key")
	if err != nil {
		return false, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK, nil
}

// logSize reads the size of the log's latest checkpoint: its second line.
func logSize(c *http.Client, base string) (int64, error) {
	resp, err := c.Get(base + "/api/log/checkpoint")
	if err != nil {
		return 0, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return 0, err
	}
	if resp.StatusCode == http.StatusNotFound {
		return 0, nil // nothing logged yet
	}
	lines := strings.SplitN(string(b), "\n", 3)
	if resp.StatusCode != http.StatusOK || len(lines) < 3 {
		return 0, fmt.Errorf("GET /api/log/checkpoint: %d %.80q", resp.StatusCode, b)
	}
	return strconv.ParseInt(lines[1], 10, 64)
}

// waitLog waits until the log's latest checkpoint holds n leaves or more.
func waitLog(c *http.Client, base string, n int64) error {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		size, err := logSize(c, base)
		if err != nil || size >= n {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("the log holds fewer than %d leaves after 2 minutes", n)
}

func fetchBody(c *http.Client, url string) ([]byte, error) {
	resp, err := c.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &statusError{url: url, status: resp.StatusCode}
	}
	return io.ReadAll(resp.Body)
}

// statusError is an answer other than 200 to a GET.
type statusError struct {
	url    string
	status int
}

func (e *statusError) Error() string { return fmt.Sprintf("GET %s: %d", e.url, e.status) }

func sendPost(c *http.Client, base string) ([]byte, error) {
	resp, err := c.Post(base+"/api/todos", "application/json", strings.NewReader(`{"category":"Grocery","title":"Get more milk","tags":["dairy"]}`))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("POST: %d", resp.StatusCode)
	}
	return b, err
}
