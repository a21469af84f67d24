package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// TestMain removes the binary handlerBinary built, with its directory.
func TestMain(m *testing.M) {
	code := m.Run()
	if binary != "" {
		_ = os.RemoveAll(filepath.Dir(binary))
	}
	os.Exit(code)
}

// handlerBinary builds the handler once per test run.
func handlerBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the handler binary")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "handler-e2e")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "handler")
		out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("%v: %s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

// inherit binds a loopback listener and hands it to cmd as file descriptor
// 3 (LISTEN_FDS=1), so the address is the process's from the start and no
// other process can take it between the test choosing it and the handler
// binding it. It returns the address.
func inherit(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	cmd.ExtraFiles = []*os.File{f}
	cmd.Env = append(cmd.Env, "LISTEN_FDS=1")
	return ln.Addr().String()
}

// refusingAddr is a loopback address nothing listens on: connections to
// it are refused.
func refusingAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// proc is a running handler process.
type proc struct {
	cmd    *exec.Cmd
	addr   string
	stdout *syncBuffer
	stderr *syncBuffer
}

// syncBuffer is a buffer the process's output goroutine writes while the
// test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startProc runs the handler with env on top of a clean environment and
// waits until /api/health says it is open.
func startProc(t *testing.T, env ...string) *proc {
	t.Helper()
	p := launchProc(t, env...)
	if !answers200(p.url("/api/health")) {
		t.Fatalf("handler did not become healthy; stderr: %s", p.stderr)
	}
	return p
}

// answers200 polls url for up to 10 s until it answers 200.
func answers200(url string) bool {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return true
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// launchProc runs the handler with env on top of a clean environment and
// waits until GET / answers, as the Functions host does.
func launchProc(t *testing.T, env ...string) *proc {
	t.Helper()
	bin := handlerBinary(t)
	cmd := exec.Command(bin)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "LOG_LEVEL=warn"}, env...)
	addr := inherit(t, cmd)
	p := &proc{cmd: cmd, addr: addr, stdout: &syncBuffer{}, stderr: &syncBuffer{}}
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The process has its own copy of the listener: once it closes it,
	// connections are refused rather than queued here.
	for _, f := range cmd.ExtraFiles {
		_ = f.Close()
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	if !answers200(p.url("/")) {
		t.Fatalf("handler did not answer GET /; stderr: %s", p.stderr)
	}
	return p
}

func (p *proc) url(path string) string { return "http://" + p.addr + path }

func post(t *testing.T, url, body string) map[string]any {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("POST %s: %d %v", url, resp.StatusCode, m)
	}
	return m
}

func put(t *testing.T, url, body string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("PUT %s: %d", url, resp.StatusCode)
	}
}

// Writes are acknowledged, the process dies with SIGKILL before any audit
// ran (the pump is off), and the restarted handler's pump catches up from
// its persisted change-feed continuation: every version is in history.
func TestKill9AuditCatchesUp(t *testing.T) {
	dir := t.TempDir()
	p := startProc(t, "DATA_DIR="+dir, "AUDIT_PUMP=off")
	var ids []string
	for i := range 10 {
		td := post(t, p.url("/api/todos"), fmt.Sprintf(`{"category":"Grocery","title":"t%d"}`, i))
		id := td["id"].(string)
		ids = append(ids, id)
		for j := range 3 {
			put(t, p.url("/api/todos/"+id), fmt.Sprintf(`{"category":"Grocery","title":"t%d-%d"}`, i, j))
		}
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Wait()

	p = startProc(t, "DATA_DIR="+dir)
	deadline := time.Now().Add(10 * time.Second)
	for _, id := range ids {
		for {
			resp, err := http.Get(p.url("/api/todos/" + id + "/history"))
			if err != nil {
				t.Fatal(err)
			}
			var h struct {
				Items    []map[string]any `json:"items"`
				Complete bool             `json:"complete"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&h)
			resp.Body.Close()
			if h.Complete && len(h.Items) == 4 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("history of %s after restart: %d versions, complete %v", id, len(h.Items), h.Complete)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// The process dies with SIGKILL while moves run concurrently, under every
// scheme that moves. Moves cross partitions in several steps, so some are
// cut half way; the restarted handler finishes them before it serves, so
// the first list after the restart shows every todo exactly once. A PUT
// to an id its todo was moved away from is refused, naming the new id.
func TestKill9DuringMoves(t *testing.T) {
	for _, scheme := range []string{"hierarchical", "category"} {
		t.Run(scheme, func(t *testing.T) {
			dir := t.TempDir()
			env := []string{"DATA_DIR=" + dir, "PARTITION_SCHEME=" + scheme}
			p := startProc(t, env...)
			const todos, workers = 120, 12
			ids := make([]string, todos)
			for i := range ids {
				ids[i] = post(t, p.url("/api/todos"), fmt.Sprintf(`{"category":"Grocery","title":"t%03d"}`, i))["id"].(string)
			}
			client := &http.Client{Timeout: 5 * time.Second}
			var moved atomic.Int64
			var wg sync.WaitGroup
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := w; i < todos; i += workers {
						id, cat := ids[i], "Household"
						for range 4 {
							resp, err := client.Post(p.url("/api/todos/"+id+"/move"), "application/json", strings.NewReader(`{"category":"`+cat+`"}`))
							if err != nil {
								return // the process is gone
							}
							var td struct{ ID string }
							_ = json.NewDecoder(resp.Body).Decode(&td)
							resp.Body.Close()
							if resp.StatusCode != http.StatusCreated {
								return
							}
							moved.Add(1)
							id, cat = td.ID, map[string]string{"Household": "Grocery", "Grocery": "Household"}[cat]
						}
					}
				}()
			}
			for moved.Load() < todos {
				time.Sleep(time.Millisecond)
			}
			if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = p.cmd.Wait()
			wg.Wait()

			p = startProc(t, env...)
			seen := map[string]int{}
			var movedAway, newID string
			next := ""
			for {
				var page struct {
					Items []struct {
						ID, Title, MovedFrom string
					}
					Continuation *string
				}
				resp, err := http.Get(p.url("/api/todos?pageSize=50" + next))
				if err != nil {
					t.Fatal(err)
				}
				_ = json.NewDecoder(resp.Body).Decode(&page)
				resp.Body.Close()
				for _, it := range page.Items {
					seen[it.Title]++
					if it.MovedFrom != "" {
						movedAway, newID = it.MovedFrom, it.ID
					}
				}
				if page.Continuation == nil {
					break
				}
				next = "&continuation=" + *page.Continuation
			}
			for i := range todos {
				if title := fmt.Sprintf("t%03d", i); seen[title] != 1 {
					t.Errorf("%s listed %d times after the restart", title, seen[title])
				}
			}
			if len(seen) != todos {
				t.Errorf("%d distinct todos listed, want %d", len(seen), todos)
			}
			t.Logf("%d moves acknowledged before the kill; restart log: %s", moved.Load(),
				regexp.MustCompile(`"msg":"finished interrupted moves"[^}]*`).FindString(p.stdout.String()))

			req, _ := http.NewRequest(http.MethodPut, p.url("/api/todos/"+movedAway), strings.NewReader(`{"category":"Grocery","title":"stale"}`))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusConflict || resp.Header.Get("Location") != "/api/todos/"+newID {
				t.Fatalf("PUT on moved-away id %s: %d, Location %q, want 409 and /api/todos/%s", movedAway, resp.StatusCode, resp.Header.Get("Location"), newID)
			}
		})
	}
}

// SIGTERM lets in-flight work finish and closes the store cleanly, so the
// next start opens it at once.
func TestGracefulShutdown(t *testing.T) {
	dir := t.TempDir()
	p := startProc(t, "DATA_DIR="+dir)
	post(t, p.url("/api/todos"), `{"category":"a","title":"b"}`)
	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v; stderr %s", err, p.stderr)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("shutdown took %v", d)
	}
	startProc(t, "DATA_DIR="+dir)
}

// A bad setting stops start-up with one line on stderr naming it.
func TestConfigErrors(t *testing.T) {
	bin := handlerBinary(t)
	for _, tc := range []struct{ env, setting string }{
		{"PARTITION_SCHEME=random", "PARTITION_SCHEME"},
		{"FUNCTIONS_CUSTOMHANDLER_PORT=7077\x00AUTH_MODE=dev", "AUTH_MODE"},
		{"MAX_BODY_BYTES=lots", "MAX_BODY_BYTES"},
		{"AUDIT_RETENTION_DAYS=90", "floor of 180 days"},
		{"LISTEN_ADDR=0.0.0.0:7071", "LISTEN_ADDR"},
	} {
		cmd := exec.Command(bin)
		cmd.Env = append([]string{"DATA_DIR=" + t.TempDir()}, strings.Split(tc.env, "\x00")...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Fatalf("%s: %v, want exit code 2", tc.env, err)
		}
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if len(lines) != 1 || !strings.Contains(lines[0], tc.setting) {
			t.Fatalf("%s: stderr %q, want one line naming %s", tc.env, stderr.String(), tc.setting)
		}
	}
}

// A misspelt setting is not ignored in silence: start-up warns of it in
// one structured line naming it and the setting it is nearest to.
func TestUnknownSettingWarned(t *testing.T) {
	p := startProc(t, "DATA_DIR="+t.TempDir(), "PARTITON_SCHEME=category")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(p.stdout.String(), "PARTITON_SCHEME") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	var warned []map[string]any
	for line := range strings.Lines(p.stdout.String()) {
		if strings.Contains(line, "PARTITON_SCHEME") {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("not a structured line: %q", line)
			}
			warned = append(warned, m)
		}
	}
	if len(warned) != 1 || warned[0]["level"] != "WARN" || warned[0]["setting"] != "PARTITON_SCHEME" || warned[0]["closest"] != "PARTITION_SCHEME" {
		t.Fatalf("warnings %v, want one naming PARTITON_SCHEME and PARTITION_SCHEME; stdout %s", warned, p.stdout)
	}
}

// A store created under one partition scheme stops a start-up under another
// at once, with exit code 1 and one line naming the setting: no retry can
// fix it, so STORE_OPEN_TIMEOUT is not waited out.
func TestChangedSchemeExitsAtOnce(t *testing.T) {
	dir := t.TempDir()
	p := startProc(t, "DATA_DIR="+dir, "PARTITION_SCHEME=hierarchical")
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v; stderr %s", err, p.stderr)
	}
	cmd := exec.Command(handlerBinary(t))
	cmd.Env = []string{"DATA_DIR=" + dir, "PARTITION_SCHEME=category", "STORE_OPEN_TIMEOUT=60s"}
	inherit(t, cmd)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("%v, want exit code 1; stderr %s", err, stderr.String())
	}
	if took > 2*time.Second {
		t.Fatalf("exited after %v, want at once", took)
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "PARTITION_SCHEME=category") {
		t.Fatalf("stderr %q, want one line naming PARTITION_SCHEME", stderr.String())
	}
	t.Logf("exited after %v: %s", took.Round(time.Millisecond), lines[0])
}

// The README's curl examples run verbatim against the handler started as
// make run starts it (only the port differs), and give the statuses the
// README says they give.
func TestReadmeExamples(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	script, expects := readmeExamples(t, string(readme))
	p := startProc(t, "DATA_DIR="+t.TempDir())
	script = strings.ReplaceAll(script, "127.0.0.1:7071", p.addr)
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("README examples failed: %v\n%s", err, out)
	}
	var got []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	status := regexp.MustCompile(`^HTTP/1\.1 (\d{3})`)
	for sc.Scan() {
		if m := status.FindStringSubmatch(sc.Text()); m != nil {
			got = append(got, m[1])
		}
	}
	if strings.Join(got, " ") != strings.Join(expects, " ") {
		t.Fatalf("statuses %v, README says %v\n%s", got, expects, out)
	}
}

// readmeExamples returns the shell block after the <!-- readme-test -->
// marker and the statuses its "# → NNN" comments promise, in order.
func readmeExamples(t *testing.T, readme string) (string, []string) {
	t.Helper()
	_, rest, ok := strings.Cut(readme, "<!-- readme-test -->")
	if !ok {
		t.Fatal("README has no <!-- readme-test --> block")
	}
	_, rest, _ = strings.Cut(rest, "```sh\n")
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("README test block is not closed")
	}
	var expects []string
	for _, m := range regexp.MustCompile(`# → (\d{3})`).FindAllStringSubmatch(block, -1) {
		expects = append(expects, m[1])
	}
	if len(expects) < 4 {
		t.Fatalf("README block promises only %d statuses", len(expects))
	}
	return block, expects
}
