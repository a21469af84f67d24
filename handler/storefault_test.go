package main

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// goodStoreFile runs the handler, writes some todos, stops it and returns
// its store file.
func goodStoreFile(t *testing.T) []byte {
	t.Helper()
	dir := t.TempDir()
	p := startProc(t, "DATA_DIR="+dir)
	for range 20 {
		post(t, p.url("/api/todos"), `{"category":"Grocery","title":"`+strings.Repeat("milk ", 100)+`"}`)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// runToExit runs the handler until it exits by itself (at most limit) and
// returns its exit code, its stderr and how long it ran.
func runToExit(t *testing.T, limit time.Duration, env ...string) (int, string, time.Duration) {
	t.Helper()
	cmd := exec.Command(handlerBinary(t))
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "LOG_LEVEL=warn"}, env...)
	inherit(t, cmd)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(limit, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	err := cmd.Wait()
	took := time.Since(start)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), stderr.String(), took
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String(), took
}

// wantOneLine checks that stderr is one line holding every part of want and
// nothing of a crash.
func wantOneLine(t *testing.T, stderr string, want ...string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 1 {
		t.Fatalf("stderr has %d lines, want one:\n%s", len(lines), stderr)
	}
	for _, w := range want {
		if !strings.Contains(lines[0], w) {
			t.Fatalf("stderr %q does not say %q", lines[0], w)
		}
	}
	for _, crash := range []string{"panic", "goroutine", "SIGBUS", "signal", "runtime error"} {
		if strings.Contains(stderr, crash) {
			t.Fatalf("stderr shows a crash (%q): %s", crash, stderr)
		}
	}
}

// A store file that cannot be used stops start-up at once with exit status
// 1 and one line naming the file and what to do: never a crash, and never
// an empty store started in its place.
func TestBrokenStoreFileStopsStartup(t *testing.T) {
	good := goodStoreFile(t)
	pageSize := os.Getpagesize()
	rng := rand.New(rand.NewPCG(5, 6))
	noise := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	damaged := func(fill func(page []byte)) []byte {
		b := append([]byte(nil), good...)
		for p := 2; p < len(b)/pageSize; p++ {
			fill(b[p*pageSize : (p+1)*pageSize])
		}
		return b
	}
	for _, tc := range []struct {
		name, problem string
		file          []byte
	}{
		{"existing 0-byte file", "is empty (0 bytes)", []byte{}},
		{"garbage", "is not a bbolt database", noise(64 << 10)},
		{"foreign file", "is not a bbolt database", append([]byte("SQLite format 3\x00"), noise(8192)...)},
		{"truncated", "is truncated", good[:pageSize+pageSize/2]},
		{"zeroed pages", "is corrupted", damaged(func(p []byte) { clear(p) })},
		{"overwritten pages", "is corrupted", damaged(func(p []byte) { copy(p, noise(len(p))) })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "store.db")
			if err := os.WriteFile(path, tc.file, 0o600); err != nil {
				t.Fatal(err)
			}
			code, stderr, took := runToExit(t, 30*time.Second, "DATA_DIR="+dir)
			if code != 1 {
				t.Fatalf("exit status %d, want 1; stderr %s", code, stderr)
			}
			wantOneLine(t, stderr, path, tc.problem, "restore it from a backup")
			if strings.Contains(stderr, "another process") {
				t.Fatalf("a broken file is blamed on another process: %s", stderr)
			}
			after, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(after, tc.file) {
				t.Fatal("start-up changed the broken file")
			}
			t.Logf("%s: exit 1 after %v", tc.name, took.Round(time.Millisecond))
		})
	}
}

// A second handler on the same DATA_DIR waits a few seconds for the
// store's lock, then exits 1, well within STORE_OPEN_TIMEOUT, with one line
// naming DATA_DIR and the other process's lock; the first one goes on
// serving.
func TestSecondProcessOnSameDataDir(t *testing.T) {
	dir := t.TempDir()
	first := startProc(t, "DATA_DIR="+dir)
	code, stderr, took := runToExit(t, time.Minute, "DATA_DIR="+dir, "STORE_OPEN_TIMEOUT=10m")
	if code != 1 {
		t.Fatalf("exit status %d after %v, want 1 (STORE_OPEN_TIMEOUT=10m); stderr %s", code, took, stderr)
	}
	wantOneLine(t, stderr, "DATA_DIR "+dir, "another process holds the lock", filepath.Join(dir, "store.db"))
	if strings.Contains(stderr, "STORE_OPEN_TIMEOUT") {
		t.Fatalf("a store another process holds was retried until STORE_OPEN_TIMEOUT: %s", stderr)
	}
	t.Logf("second process: exit 1 after %v", took.Round(time.Millisecond))
	post(t, first.url("/api/todos"), `{"category":"Grocery","title":"still serving"}`)
}

// A DATA_DIR the store can never live in (here a path through a file)
// stops start-up at once, well within STORE_OPEN_TIMEOUT, with one line
// naming DATA_DIR: no retry can fix it.
func TestUnusableDataDirStopsStartup(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	code, stderr, took := runToExit(t, 30*time.Second, "DATA_DIR="+filepath.Join(file, "data"), "STORE_OPEN_TIMEOUT=60s")
	if code != 1 {
		t.Fatalf("exit status %d, want 1; stderr %s", code, stderr)
	}
	wantOneLine(t, stderr, "DATA_DIR", file, "not a directory")
	t.Logf("exit 1 after %v", took.Round(time.Millisecond))
}

// A LISTEN_ADDR another process holds stops start-up with one line that
// names the setting to change.
func TestPortInUseNamesListenAddr(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cmd := exec.Command(handlerBinary(t))
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "DATA_DIR=" + t.TempDir(), "LISTEN_ADDR=" + ln.Addr().String()}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("%v, want exit code 1; stderr %s", err, stderr.String())
	}
	wantOneLine(t, stderr.String(), ln.Addr().String(), "in use", "LISTEN_ADDR")
}
