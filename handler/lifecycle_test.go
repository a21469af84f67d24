package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/todoaudit/todo/app/apitest"
)

// emulatorKey is the well-known Cosmos DB emulator key: valid base64, so
// the SDK accepts it; the endpoints here never check it.
const emulatorKey = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="

// hangingEndpoint accepts connections and never answers, like a Cosmos DB
// endpoint behind a black-holing network.
func hangingEndpoint(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return "http://" + ln.Addr().String() + "/"
}

// exitAfter sends sig and waits for the process to exit; it returns the
// exit code and how long the exit took.
func (p *proc) exitAfter(t *testing.T, sig syscall.Signal) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	return p.exit(t, start)
}

// exit waits (at most 30 s) for the process to exit, and reports its exit
// code and the time since start.
func (p *proc) exit(t *testing.T, start time.Time) (int, time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		took := time.Since(start)
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), took
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, took
	case <-time.After(30 * time.Second):
		t.Fatalf("the handler did not exit within 30s; stderr: %s", p.stderr)
		return -1, 0
	}
}

// SIGTERM while the store is still opening against a Cosmos DB endpoint
// that never answers ends the process within 2 s with exit status 0; the
// request waiting for the store gets 503 (or its connection closes).
func TestSigtermWhileOpening(t *testing.T) {
	p := launchProc(t, "STORE=cosmos", "COSMOS_ENDPOINT="+hangingEndpoint(t), "COSMOS_KEY="+emulatorKey)
	resp, err := http.Get(p.url("/api/health"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || !strings.Contains(string(b), `"status":"starting"`) {
		t.Fatalf("health while opening: %d %s", resp.StatusCode, b)
	}
	req, _ := http.NewRequest("GET", p.url("/api/todos"), nil)
	req.Header.Set("X-User-Id", "alice")
	req, wrote := apitest.Written(req)
	waiting := make(chan int, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			waiting <- 0
			return
		}
		resp.Body.Close()
		waiting <- resp.StatusCode
	}()
	select {
	case <-wrote:
	case <-time.After(10 * time.Second):
		t.Fatal("the request was not sent within 10s")
	}
	code, took := p.exitAfter(t, syscall.SIGTERM)
	t.Logf("exit %d %v after SIGTERM while opening", code, took.Round(time.Millisecond))
	if code != 0 || took > 2*time.Second {
		t.Fatalf("exit %d after %v, want 0 within 2s; stderr: %s", code, took, p.stderr)
	}
	if status := <-waiting; status != 0 && status != 503 {
		t.Fatalf("a request waiting for the store got %d", status)
	}
}

// A store that cannot be reached is retried, each failure logged at warn
// with its cause, until STORE_OPEN_TIMEOUT; then the process exits 1 with
// one line on stderr naming the cause.
func TestStoreOpenTimeoutExits(t *testing.T) {
	refused := "http://" + refusingAddr(t) + "/"
	p := launchProc(t, "STORE=cosmos", "COSMOS_ENDPOINT="+refused, "COSMOS_KEY="+emulatorKey, "STORE_OPEN_TIMEOUT=3s")
	code, took := p.exit(t, time.Now())
	t.Logf("exit %d %v after launch", code, took.Round(time.Millisecond))
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr: %s", code, p.stderr)
	}
	lines := strings.Split(strings.TrimSpace(p.stderr.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "STORE_OPEN_TIMEOUT") || !strings.Contains(lines[0], "connection refused") {
		t.Fatalf("stderr %q, want one line naming STORE_OPEN_TIMEOUT and the cause", p.stderr)
	}
	retries := 0
	sc := bufio.NewScanner(strings.NewReader(p.stdout.String()))
	for sc.Scan() {
		var l map[string]any
		if json.Unmarshal(sc.Bytes(), &l) == nil && l["level"] == "WARN" && strings.Contains(fmt.Sprint(l["error"]), "connection refused") {
			retries++
		}
	}
	if retries < 2 {
		t.Fatalf("%d warnings naming the cause, want one per failed attempt; stdout: %s", retries, p.stdout)
	}
}

// SIGTERM under load: the process exits 0 within 2 s (the requests in
// flight are short), and every write it acknowledged is there after a
// restart.
func TestSigtermUnderLoad(t *testing.T) {
	dir := t.TempDir()
	p := startProc(t, "DATA_DIR="+dir)
	var mu sync.Mutex
	var acked []string
	loaded := make(chan struct{}) // closed at the 50th acknowledged write
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 10 * time.Second}
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := client.Post(p.url("/api/todos"), "application/json", strings.NewReader(fmt.Sprintf(`{"category":"load","title":"w%d-%d"}`, w, i)))
				if err != nil {
					continue // refused once the handler stops listening
				}
				var td struct{ ID string }
				_ = json.NewDecoder(resp.Body).Decode(&td)
				resp.Body.Close()
				if resp.StatusCode == 201 {
					mu.Lock()
					if acked = append(acked, td.ID); len(acked) == 50 {
						close(loaded)
					}
					mu.Unlock()
				}
			}
		}()
	}
	select {
	case <-loaded:
	case <-time.After(20 * time.Second):
		t.Fatalf("fewer than 50 writes acknowledged in 20s; stderr: %s", p.stderr)
	}
	code, took := p.exitAfter(t, syscall.SIGTERM)
	close(stop)
	wg.Wait()
	t.Logf("exit %d %v after SIGTERM under load, %d writes acknowledged", code, took.Round(time.Millisecond), len(acked))
	if code != 0 || took > 2*time.Second {
		t.Fatalf("exit %d after %v, want 0 within 2s; stderr: %s", code, took, p.stderr)
	}
	if len(acked) == 0 {
		t.Fatal("no write acknowledged")
	}
	p = startProc(t, "DATA_DIR="+dir)
	for _, id := range acked {
		resp, err := http.Get(p.url("/api/todos/" + id))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("acknowledged todo %s: %d after restart", id, resp.StatusCode)
		}
	}
}

// slowRequest starts a POST whose body arrives in two parts, and returns
// once the handler is reading it (it asks for the body with Expect:
// 100-continue, which the server answers when the handler first reads),
// with the connection, what to read its answer from, and the rest of the
// body.
func slowRequest(t *testing.T, addr string) (net.Conn, *bufio.Reader, string) {
	t.Helper()
	body := `{"category":"slow","title":"finished after SIGTERM"}`
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	fmt.Fprintf(c, "POST /api/todos HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n%s",
		addr, len(body), body[:10])
	r := bufio.NewReader(c)
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, "HTTP/1.1 100 ") {
		t.Fatalf("the handler did not start reading the body: %q %v", line, err)
	}
	if line, err := r.ReadString('\n'); err != nil || line != "\r\n" {
		t.Fatalf("after 100 Continue: %q %v", line, err)
	}
	_ = c.SetReadDeadline(time.Time{})
	return c, r, body[10:]
}

// draining sends SIGTERM and returns once the process has stopped
// accepting connections: it is draining what it has.
func (p *proc) draining(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; {
		c, err := net.DialTimeout("tcp", p.addr, time.Second)
		if err != nil {
			return
		}
		_ = c.Close()
		if time.Now().After(deadline) {
			t.Fatalf("still accepting connections 5s after SIGTERM; stderr: %s", p.stderr)
		}
		time.Sleep(2 * time.Millisecond) // each try is a connection the handler accepts
	}
}

// While draining, an in-flight request finishes and is answered before the
// process exits 0; one that never finishes is cut off after
// SHUTDOWN_TIMEOUT; a second signal ends the wait within 2 s.
func TestSigtermWhileDraining(t *testing.T) {
	t.Run("in-flight request finishes", func(t *testing.T) {
		p := startProc(t, "DATA_DIR="+t.TempDir())
		c, r, rest := slowRequest(t, p.addr)
		start := time.Now()
		p.draining(t)
		inFlight := time.Since(start)
		fmt.Fprint(c, rest)
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatalf("the in-flight request was not answered: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode != 201 {
			t.Fatalf("in-flight request: %d", resp.StatusCode)
		}
		code, took := p.exit(t, start)
		t.Logf("exit %d %v after SIGTERM, with a request in flight for %v of it", code, took.Round(time.Millisecond), inFlight.Round(time.Millisecond))
		if code != 0 || took > 2*time.Second+inFlight {
			t.Fatalf("exit %d after %v; stderr: %s", code, took, p.stderr)
		}
	})
	t.Run("SHUTDOWN_TIMEOUT cuts a stuck request", func(t *testing.T) {
		p := startProc(t, "DATA_DIR="+t.TempDir(), "SHUTDOWN_TIMEOUT=1s")
		slowRequest(t, p.addr)
		code, took := p.exitAfter(t, syscall.SIGTERM)
		t.Logf("exit %d %v after SIGTERM with a stuck request, SHUTDOWN_TIMEOUT=1s", code, took.Round(time.Millisecond))
		if code != 0 || took < time.Second || took > 3*time.Second {
			t.Fatalf("exit %d after %v, want 0 after about 1s; stderr: %s", code, took, p.stderr)
		}
	})
	t.Run("second signal", func(t *testing.T) {
		p := startProc(t, "DATA_DIR="+t.TempDir())
		slowRequest(t, p.addr)
		p.draining(t)
		code, took := p.exitAfter(t, syscall.SIGINT)
		t.Logf("exit %d %v after a second signal while draining", code, took.Round(time.Millisecond))
		if code != 0 || took > 2*time.Second {
			t.Fatalf("exit %d after %v, want 0 within 2s; stderr: %s", code, took, p.stderr)
		}
	})
}
