package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"

	"github.com/todoaudit/todo/transparency/witness"
	"github.com/todoaudit/todo/transparency/witnessproto"
)

// syncBuffer is a buffer the server writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// start runs the command until the test ends, and returns its address
// and the verifier key it printed.
func start(t *testing.T, args ...string) (addr, vkey string, stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, &stdout, &stderr, func(a string) { ready <- a }) }()
	select {
	case addr = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("tlog-witness exited: %v\n%s", err, stderr.String())
	}
	stopped := false
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		return <-done
	}
	t.Cleanup(func() { stop() })
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	return addr, lines[0], stop
}

// TestCommand starts the witness with a new data directory, submits a
// checkpoint, stops it as SIGTERM does, and starts it again: the same key,
// and the state kept.
func TestCommand(t *testing.T) {
	skey, lkey, err := note.GenerateKey(rand.Reader, "example.com/log")
	if err != nil {
		t.Fatal(err)
	}
	signer, _ := note.NewSigner(skey)
	empty := sha256.Sum256(nil)
	cp, err := note.Sign(&note.Note{Text: "example.com/log\n0\n" + base64.StdEncoding.EncodeToString(empty[:]) + "\n"}, signer)
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	args := []string{"-listen", "127.0.0.1:0", "-data", data, "-name", "witness.example/w1", "-log", lkey}
	addr, vkey, stop := start(t, args...)
	if _, err := fnote.NewVerifierForCosignatureV1(vkey); err != nil {
		t.Fatalf("printed %q, not a cosignature verifier key: %v", vkey, err)
	}
	cosig, err := witnessproto.Submit(context.Background(), http.DefaultClient, "http://"+addr, witnessproto.Request{Checkpoint: cp})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(cosig, []byte("— witness.example/w1 ")) {
		t.Fatalf("cosignature %q", cosig)
	}
	if err := stop(); err != nil {
		t.Fatalf("stopping: %v", err)
	}

	addr, again, _ := start(t, args...)
	if again != vkey {
		t.Fatalf("after a restart the key is %q, was %q", again, vkey)
	}
	resp, err := http.Get("http://" + addr + "/" + witness.OriginHash("example.com/log") + "/checkpoint")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !bytes.Contains(b, cosig) {
		t.Fatalf("after a restart the monitoring route answers %d %q", resp.StatusCode, b)
	}
}

func TestCommandNeedsItsFlags(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-data", t.TempDir()}, &out, &out, nil); err == nil {
		t.Fatal("started without -name and -log")
	}
}
