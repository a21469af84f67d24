package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/store"
)

// instructionsPerUpdate runs the handler under callgrind and counts the
// instructions the whole process executes per update: updates PUTs from
// clients concurrent clients, and the audit pump's catch-up after them
// (until a write after the last one is in its history). The count does not
// move with the machine's load, as wall-clock figures do. Start-up and a
// warm-up are left out: the counters are zeroed after them. It also
// returns the path of the callgrind dump.
func instructionsPerUpdate(bin, dir string, clients, updates int) (float64, string, error) {
	addr, err := freeAddr()
	if err != nil {
		return 0, "", err
	}
	out := filepath.Join(dir, "callgrind.out")
	cmd := exec.Command("valgrind", "--tool=callgrind", "--callgrind-out-file="+out, bin)
	// Callgrind aborts on the signals of Go's asynchronous preemption.
	cmd.Env = append(os.Environ(), "GODEBUG=asyncpreemptoff=1", "LISTEN_ADDR="+addr, "DATA_DIR="+filepath.Join(dir, "data"), "AUTH_MODE=dev", "LOG_LEVEL=warn")
	if err := cmd.Start(); err != nil {
		return 0, "", fmt.Errorf("valgrind: %w", err)
	}
	p := &proc{cmd: cmd, base: "http://" + addr}
	defer p.stop()
	if err := waitFor(p.base+"/api/health", 2*time.Minute); err != nil {
		return 0, "", err
	}
	c := newClient(clients)
	c.Timeout = time.Minute
	ids := make([]string, clients)
	for i := range ids {
		if ids[i], _, _, err = seed(c, p.base); err != nil {
			return 0, "", err
		}
	}
	var n atomic.Int64
	round := func(perClient int) error {
		var wg sync.WaitGroup
		errs := make(chan error, clients)
		for w := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range perClient {
					if err := putTodo(c, p.base+"/api/todos/"+ids[w], n.Add(1)); err != nil {
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
	if err := round(4); err != nil {
		return 0, "", err
	}
	if err := audited(c, p.base); err != nil {
		return 0, "", err
	}
	if err := callgrindControl("--zero", cmd.Process.Pid); err != nil {
		return 0, "", err
	}
	perClient := max(updates/clients, 1)
	if err := round(perClient); err != nil {
		return 0, "", err
	}
	if err := audited(c, p.base); err != nil {
		return 0, "", err
	}
	if err := callgrindControl("--dump", cmd.Process.Pid); err != nil {
		return 0, "", err
	}
	ir, dump, err := dumpedInstructions(out)
	if err != nil {
		return 0, "", err
	}
	return float64(ir) / float64(perClient*clients), dump, nil
}

func callgrindControl(arg string, pid int) error {
	if out, err := exec.Command("callgrind_control", arg, strconv.Itoa(pid)).CombinedOutput(); err != nil {
		return fmt.Errorf("callgrind_control %s: %v: %s", arg, err, out)
	}
	return nil
}

// audited waits until everything written so far is audited: it creates a
// probe todo and waits, polling once a second, until the probe's create is
// in its history. The pump audits the change feed in commit order, so by
// then every earlier write is audited too.
func audited(c *http.Client, base string) error {
	id, _, _, err := seed(c, base)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		resp, err := c.Get(base + "/api/todos/" + id + "/history")
		if err != nil {
			return err
		}
		var page struct {
			Items []json.RawMessage `json:"items"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if len(page.Items) > 0 {
			return nil
		}
		time.Sleep(time.Second)
	}
	return fmt.Errorf("the audit did not catch up within 5 minutes")
}

// dumpedInstructions reads the instruction total of the last callgrind
// dump written next to out (callgrind names dumps out.N), and its path.
func dumpedInstructions(out string) (int64, string, error) {
	matches, err := filepath.Glob(out + "*")
	if err != nil || len(matches) == 0 {
		return 0, "", fmt.Errorf("no callgrind dump at %s", out)
	}
	var last string
	for _, m := range matches {
		if m != out {
			last = m
		}
	}
	if last == "" {
		return 0, "", fmt.Errorf("no callgrind dump after %s", out)
	}
	f, err := os.Open(last)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "summary:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n, last, err
		}
	}
	return 0, "", fmt.Errorf("%s has no summary line", last)
}

// storeBatchRate is the embedded store's own rate of the write every
// update makes, a two-document batch (a todo and its version document),
// fsynced, from writers concurrent writers for d: the ceiling an update
// rate is compared with.
func storeBatchRate(dir string, writers int, d time.Duration) (float64, error) {
	specs, err := partition.Containers(partition.Hierarchical, partition.DefaultContainerNames)
	if err != nil {
		return 0, err
	}
	st, err := bolt.Open(dir, specs, nil)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	ctx := context.Background()
	todos, err := st.Container(ctx, specs[0].Name)
	if err != nil {
		return 0, err
	}
	doc := func(id string) []byte {
		return fmt.Appendf(nil, `{"id":%q,"type":"todo","userId":"alice","category":"Grocery","title":"Get more milk","isCompleted":false,"version":1}`, id)
	}
	var n, done atomic.Int64
	var failed atomic.Value
	stop := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				id := "Grocery:w" + strconv.FormatInt(n.Add(1), 10)
				ops := []store.Op{{Kind: store.BatchUpsert, Doc: doc(id)}, {Kind: store.BatchUpsert, Doc: doc(id + ":v1")}}
				if _, err := todos.Batch(ctx, store.PartitionKey{"alice", "Grocery"}, ops); err != nil {
					failed.Store(err)
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		return 0, err
	}
	return float64(done.Load()) / time.Since(start).Seconds(), nil
}
