package storetest

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/todoaudit/todo/store"
)

func (s *suite) restart(t *testing.T) {
	if !s.h.Durable {
		t.Skip("the store does not persist across Open")
	}
	dir := t.TempDir()
	st := s.h.Open(t, dir, []store.ContainerSpec{flat})
	c := s.container(t, st, flat.Name)
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "a", "pk", "p1")))
	cont := s.drainFeed(t, c, "").cont
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "b", "pk", "p1")))
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = s.h.Open(t, dir, []store.ContainerSpec{flat})
	defer st.Close()
	c = s.container(t, st, flat.Name)
	must[store.Item](t)(c.Read(s.ctx, pk("p1"), "a"))
	if got := s.drainFeed(t, c, cont); strings.Join(idsOf(got.items), ",") != "b" {
		t.Fatalf("feed after restart from a saved continuation = %v, want [b]", idsOf(got.items))
	}
}

// concurrent runs writers in parallel (run the suite with -race) and checks
// every acknowledged write is readable.
func (s *suite) concurrent(t *testing.T) {
	st := s.h.Open(t, t.TempDir(), []store.ContainerSpec{flat})
	defer st.Close()
	c := s.container(t, st, flat.Name)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				p := fmt.Sprint("p", w%4)
				id := fmt.Sprintf("w%d-%d", w, i)
				if _, err := c.Batch(s.ctx, pk(p), []store.Op{
					{Kind: store.BatchCreate, Doc: doc("id", id, "pk", p)},
					{Kind: store.BatchCreate, Doc: doc("id", id+"-v", "pk", p)},
				}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := len(s.all(t, c, store.Query{PageSize: 100})); got != 16*20*2 {
		t.Fatalf("%d items after concurrent writes, want %d", got, 16*20*2)
	}
}

const childEnv = "STORETEST_KILL_CHILD_DIR"

// killNine starts a child process (this test binary, running this very
// test) that writes batches in a loop and reports each acknowledged one,
// kills it with SIGKILL, reopens the store and checks that every
// acknowledged write is there, whole.
func (s *suite) killNine(t *testing.T) {
	if !s.h.Durable {
		t.Skip("the store does not persist across Open")
	}
	if dir := os.Getenv(childEnv); dir != "" {
		s.killChild(t, dir)
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := map[int]bool{}
	buf := make([]byte, 0, 4096)
	deadline := time.Now().Add(20 * time.Second)
	for len(acked) < 300 && time.Now().Before(deadline) {
		chunk := make([]byte, 4096)
		n, err := out.Read(chunk)
		buf = append(buf, chunk[:n]...)
		for {
			i := strings.IndexByte(string(buf), '\n')
			if i < 0 {
				break
			}
			line := string(buf[:i])
			buf = buf[i+1:]
			if v, ok := strings.CutPrefix(line, "ACK "); ok {
				n, _ := strconv.Atoi(v)
				acked[n] = true
			}
		}
		if err != nil {
			break
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if len(acked) < 50 {
		t.Fatalf("the child acknowledged only %d writes before the deadline", len(acked))
	}
	st := s.h.Open(t, dir, []store.ContainerSpec{flat})
	defer st.Close()
	c := s.container(t, st, flat.Name)
	for n := range acked {
		id := fmt.Sprint("k", n)
		for _, suffix := range []string{"", "-v"} {
			it, err := c.Read(s.ctx, pk("p1"), id+suffix)
			if err != nil {
				t.Fatalf("acknowledged write %s%s lost after kill -9: %v", id, suffix, err)
			}
			if field(t, it.Body, "n") != float64(n) {
				t.Fatalf("write %s%s torn: %s", id, suffix, it.Body)
			}
		}
	}
	// Every batch is all or nothing, acknowledged or not.
	for _, it := range s.all(t, c, store.Query{PartitionKey: pk("p1"), PageSize: 500}) {
		if strings.HasSuffix(it.ID, "-v") {
			continue
		}
		if _, err := c.Read(s.ctx, pk("p1"), it.ID+"-v"); err != nil {
			t.Fatalf("half a batch survived: %s without %s-v", it.ID, it.ID)
		}
	}
	t.Logf("%d acknowledged batches survived kill -9", len(acked))
}

func (s *suite) killChild(t *testing.T, dir string) {
	st := s.h.Open(t, dir, []store.ContainerSpec{flat})
	c := s.container(t, st, flat.Name)
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				n := next
				next++
				mu.Unlock()
				id := fmt.Sprint("k", n)
				if _, err := c.Batch(s.ctx, pk("p1"), []store.Op{
					{Kind: store.BatchCreate, Doc: doc("id", id, "pk", "p1", "n", n)},
					{Kind: store.BatchCreate, Doc: doc("id", id+"-v", "pk", "p1", "n", n)},
				}); err != nil {
					fmt.Println("ERR", err)
					return
				}
				mu.Lock()
				fmt.Printf("ACK %d\n", n)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}
