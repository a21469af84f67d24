package witness

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/transparency/witnessproto"
)

// testLog is a log kept in memory: its stored hashes, and a key to sign
// its checkpoints with.
type testLog struct {
	t      testing.TB
	origin string
	signer note.Signer
	vkey   string
	hashes []tlog.Hash
	n      int64
}

func newTestLog(t testing.TB, origin string) *testLog {
	skey, vkey, err := note.GenerateKey(rand.Reader, origin)
	if err != nil {
		t.Fatal(err)
	}
	s, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	return &testLog{t: t, origin: origin, signer: s, vkey: vkey}
}

func (l *testLog) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		out[i] = l.hashes[x]
	}
	return out, nil
}

// grow appends n leaves, each naming its index and tag.
func (l *testLog) grow(n int, tag string) {
	for range n {
		hs, err := tlog.StoredHashes(l.n, fmt.Appendf(nil, "leaf %d %s", l.n, tag), l)
		if err != nil {
			l.t.Fatal(err)
		}
		l.hashes = append(l.hashes, hs...)
		l.n++
	}
}

func (l *testLog) root(n int64) tlog.Hash {
	h, err := tlog.TreeHash(n, l)
	if err != nil {
		l.t.Fatal(err)
	}
	return h
}

func (l *testLog) checkpoint(n int64) []byte {
	return signCheckpoint(l.t, l.signer, l.origin, n, l.root(n))
}

func signCheckpoint(t testing.TB, s note.Signer, origin string, n int64, root tlog.Hash) []byte {
	msg, err := note.Sign(&note.Note{Text: fmt.Sprintf("%s\n%d\n%s\n", origin, n, root)}, s)
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

func mustSign(t testing.TB, s note.Signer, text string) []byte {
	msg, err := note.Sign(&note.Note{Text: text}, s)
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

func (l *testLog) request(old, n int64) witnessproto.Request {
	r := witnessproto.Request{Old: old, Checkpoint: l.checkpoint(n)}
	if old > 0 && old < n {
		p, err := tlog.ProveTree(n, old, l)
		if err != nil {
			l.t.Fatal(err)
		}
		r.Proof = p
	}
	return r
}

type testWitness struct {
	*Witness
	key  *Key
	path string
	url  string
}

func newTestWitness(t testing.TB, typ string, logs ...*testLog) *testWitness {
	file, err := GenerateKey("witness.example/w1", typ)
	if err != nil {
		t.Fatal(err)
	}
	key, err := NewKey(file)
	if err != nil {
		t.Fatal(err)
	}
	tw := &testWitness{key: key, path: filepath.Join(t.TempDir(), "witness.db")}
	tw.open(t, logs...)
	return tw
}

func (tw *testWitness) open(t testing.TB, logs ...*testLog) {
	var keys []string
	for _, l := range logs {
		keys = append(keys, l.vkey)
	}
	w, err := Open(tw.path, tw.key, keys, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	tw.Witness = w
	srv := httptest.NewServer(w.Handler())
	tw.url = srv.URL
	t.Cleanup(func() { srv.Close(); w.Close() })
}

// post sends a raw body and returns the status, content type and body.
func post(t testing.TB, url string, body []byte) (int, string, string) {
	resp, err := http.Post(url+"/add-checkpoint", "text/plain", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// cosigned checks that cosig is the witness's cosignature of req's
// checkpoint, with formats' verifier.
func (tw *testWitness) cosigned(t testing.TB, req witnessproto.Request, cosig []byte) {
	t.Helper()
	v, err := fnote.NewVerifierForCosignatureV1(tw.key.VerifierKey)
	if err != nil {
		t.Fatal(err)
	}
	n, err := note.Open(append(bytes.Clone(req.Checkpoint), cosig...), note.VerifierList(v))
	if err != nil || len(n.Sigs) != 1 {
		t.Fatalf("cosignature %q does not verify: %v", cosig, err)
	}
	if ts, err := fnote.CoSigV1Timestamp(n.Sigs[0]); err != nil || ts.IsZero() {
		t.Fatalf("cosignature timestamp %v, %v", ts, err)
	}
}

// latest is the size of the witness's checkpoint of l, 0 for none.
func (tw *testWitness) latest(t testing.TB, l *testLog) int64 {
	resp, err := http.Get(tw.url + "/" + OriginHash(l.origin) + "/checkpoint")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusNotFound {
		return 0
	}
	lv, _ := note.NewVerifier(l.vkey)
	wv, _ := fnote.NewVerifierForCosignatureV1(tw.key.VerifierKey)
	n, err := note.Open(b, note.VerifierList(lv, wv))
	if err != nil || len(n.Sigs) != 2 {
		t.Fatalf("monitoring route served %q: %v", b, err)
	}
	c, err := parseCheckpoint(n.Text)
	if err != nil {
		t.Fatal(err)
	}
	return c.N
}

func TestSpecification(t *testing.T) {
	for _, typ := range []string{Ed25519, MLDSA44} {
		t.Run(typ, func(t *testing.T) {
			l := newTestLog(t, "example.com/log")
			w := newTestWitness(t, typ, l)
			ctx := context.Background()
			l.grow(5, "a")

			if w.latest(t, l) != 0 {
				t.Fatal("monitoring route serves a checkpoint before any was cosigned")
			}
			// First contact, old 0.
			req := l.request(0, 5)
			cosig, err := witnessproto.Submit(ctx, http.DefaultClient, w.url, req)
			if err != nil {
				t.Fatal(err)
			}
			w.cosigned(t, req, cosig)
			if got := w.latest(t, l); got != 5 {
				t.Fatalf("monitoring route: size %d, want 5", got)
			}

			// A normal append.
			l.grow(3, "a")
			req = l.request(5, 8)
			cosig, err = witnessproto.Submit(ctx, http.DefaultClient, w.url, req)
			if err != nil {
				t.Fatal(err)
			}
			w.cosigned(t, req, cosig)

			// A stale old: 409, the size as the body; the retry from it
			// succeeds.
			l.grow(2, "a")
			status, ctype, body := post(t, w.url, l.request(5, 10).Encode())
			if status != http.StatusConflict || ctype != "text/x.tlog.size" || body != "8\n" {
				t.Fatalf("stale old: %d %q %q, want 409 text/x.tlog.size \"8\\n\"", status, ctype, body)
			}
			_, err = witnessproto.Submit(ctx, http.DefaultClient, w.url, l.request(0, 10))
			var stale *witnessproto.StaleError
			if !errors.As(err, &stale) || stale.Size != 8 {
				t.Fatalf("client got %v, want a StaleError of size 8", err)
			}
			req = l.request(stale.Size, 10)
			if cosig, err = witnessproto.Submit(ctx, http.DefaultClient, w.url, req); err != nil {
				t.Fatal(err)
			}
			w.cosigned(t, req, cosig)

			// The same checkpoint again is cosigned again.
			if _, err := witnessproto.Submit(ctx, http.DefaultClient, w.url, l.request(10, 10)); err != nil {
				t.Fatal(err)
			}

			// A forked root at the same size: 422, no cosignature.
			fork := newTestLog(t, l.origin)
			fork.signer = l.signer
			fork.grow(10, "b")
			status, _, body = post(t, w.url, fork.request(10, 10).Encode())
			if status != http.StatusUnprocessableEntity || strings.Contains(body, "—") {
				t.Fatalf("forked root: %d %q, want 422 without a cosignature", status, body)
			}

			// A log that rewrote history: a proof from 10 of another
			// tree does not verify.
			fork.grow(4, "b")
			status, _, body = post(t, w.url, fork.request(10, 14).Encode())
			if status != http.StatusUnprocessableEntity {
				t.Fatalf("rewritten history: %d %q, want 422", status, body)
			}
			if got := w.latest(t, l); got != 10 {
				t.Fatalf("after the refusals the witness holds size %d, want 10", got)
			}

			// An unknown origin: 404.
			other := newTestLog(t, "example.com/other")
			other.grow(1, "c")
			if status, _, body = post(t, w.url, other.request(0, 1).Encode()); status != http.StatusNotFound {
				t.Fatalf("unknown origin: %d %q, want 404", status, body)
			}

			// A bad log signature: another key under the log's name, or
			// the log's key over other text: 403.
			impostor := newTestLog(t, l.origin)
			if status, _, body = post(t, w.url, witnessproto.Request{Old: 10, Checkpoint: signCheckpoint(t, impostor.signer, l.origin, 10, l.root(10))}.Encode()); status != http.StatusForbidden {
				t.Fatalf("another key: %d %q, want 403", status, body)
			}
			edited := bytes.Replace(l.checkpoint(10), []byte("\n10\n"), []byte("\n11\n"), 1)
			if status, _, body = post(t, w.url, witnessproto.Request{Old: 10, Checkpoint: edited}.Encode()); status != http.StatusForbidden {
				t.Fatalf("an edited checkpoint: %d %q, want 403", status, body)
			}

			// Malformed: 400.
			for name, b := range map[string][]byte{
				"no old line":     []byte("\n" + string(l.checkpoint(10))),
				"leading zero":    []byte("old 010\n\n" + string(l.checkpoint(10))),
				"bad proof line":  []byte("old 8\nnot base64\n\n" + string(l.checkpoint(10))),
				"old beyond size": witnessproto.Request{Old: 11, Checkpoint: l.checkpoint(10)}.Encode(),
				"unsigned":        []byte("old 10\n\n" + l.origin + "\n10\n" + l.root(10).String() + "\n"),
				"no empty line":   []byte("old 10\n"),
				"no root":         witnessproto.Request{Old: 10, Checkpoint: mustSign(t, l.signer, l.origin+"\n10\n")}.Encode(),
				"an empty extension line": witnessproto.Request{Old: 10,
					Checkpoint: mustSign(t, l.signer, fmt.Sprintf("%s\n10\n%s\n\nx\n", l.origin, l.root(10)))}.Encode(),
				"an empty last line": witnessproto.Request{Old: 10,
					Checkpoint: mustSign(t, l.signer, fmt.Sprintf("%s\n10\n%s\n\n", l.origin, l.root(10)))}.Encode(),
			} {
				if status, _, body = post(t, w.url, b); status != http.StatusBadRequest {
					t.Errorf("%s: %d %q, want 400", name, status, body)
				}
			}
			if got := w.latest(t, l); got != 10 {
				t.Fatalf("after the refusals the witness holds size %d, want 10", got)
			}
		})
	}
}

// A checkpoint signed by many others besides the log, each with a
// signature as long as a post-quantum one, is cosigned: signed-note asks
// for at least 16 signatures to be accepted.
func TestManyLongSignatures(t *testing.T) {
	l := newTestLog(t, "example.com/log")
	w := newTestWitness(t, Ed25519, l)
	l.grow(3, "a")
	req := l.request(0, 3)
	long := make([]byte, 4+4627) // an ML-DSA-87 signature, the longest
	for i := range 15 {
		req.Checkpoint = fmt.Appendf(req.Checkpoint, "— other.example/%d %s\n", i, base64.StdEncoding.EncodeToString(long))
	}
	cosig, err := witnessproto.Submit(context.Background(), http.DefaultClient, w.url, req)
	if err != nil {
		t.Fatalf("16 signatures, %d bytes: %v", len(req.Checkpoint), err)
	}
	w.cosigned(t, req, cosig)
}

// A log key given twice is trusted as given once.
func TestLogKeyTwice(t *testing.T) {
	l := newTestLog(t, "example.com/log")
	w := newTestWitness(t, Ed25519, l, l)
	l.grow(1, "a")
	if _, err := witnessproto.Submit(context.Background(), http.DefaultClient, w.url, l.request(0, 1)); err != nil {
		t.Fatal(err)
	}
}

func TestEmptyTree(t *testing.T) {
	l := newTestLog(t, "example.com/log")
	w := newTestWitness(t, Ed25519, l)
	if _, err := w.Add(l.request(0, 0)); err != nil {
		t.Fatalf("the empty tree: %v", err)
	}
	bad := witnessproto.Request{Checkpoint: signCheckpoint(t, l.signer, l.origin, 0, tlog.Hash(sha256.Sum256([]byte("x"))))}
	if _, err := w.Add(bad); !todo.IsKind(err, todo.Unprocessable) {
		t.Fatalf("size 0 with another root: %v, want Unprocessable", err)
	}
	l.grow(2, "a")
	req := l.request(0, 2)
	req.Proof = tlog.TreeProof{l.root(1)}
	if _, err := w.Add(req); !todo.IsKind(err, todo.Unprocessable) {
		t.Fatalf("a proof from size 0: %v, want Unprocessable", err)
	}
}

// TestConcurrentSubmissions sends submissions from one old size to
// several sizes at once: one wins, the others get 409 with the winner's
// size, and the witness's size never goes back.
func TestConcurrentSubmissions(t *testing.T) {
	l := newTestLog(t, "example.com/log")
	w := newTestWitness(t, Ed25519, l)
	l.grow(5, "a")
	if _, err := w.Add(l.request(0, 5)); err != nil {
		t.Fatal(err)
	}
	l.grow(20, "a")
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, errs[i] = witnessproto.Submit(context.Background(), http.DefaultClient, w.url, l.request(5, int64(25-i)))
		})
	}
	wg.Wait()
	won := -1
	for i, err := range errs {
		var stale *witnessproto.StaleError
		switch {
		case err == nil && won >= 0:
			t.Fatalf("two submissions from size 5 won: %d and %d", 25-won, 25-i)
		case err == nil:
			won = i
		case !errors.As(err, &stale):
			t.Fatalf("submission of size %d: %v", 25-i, err)
		}
	}
	if won < 0 {
		t.Fatal("no submission won")
	}
	for i, err := range errs {
		var stale *witnessproto.StaleError
		if i != won && (!errors.As(err, &stale) || stale.Size != int64(25-won)) {
			t.Fatalf("submission of size %d: %v, want 409 with size %d", 25-i, err, 25-won)
		}
	}
	if got := w.latest(t, l); got != int64(25-won) {
		t.Fatalf("witness holds size %d, want the winner's %d", got, 25-won)
	}
}

func TestRestartKeepsState(t *testing.T) {
	l := newTestLog(t, "example.com/log")
	w := newTestWitness(t, MLDSA44, l)
	l.grow(3, "a")
	if _, err := w.Add(l.request(0, 3)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w.open(t, l)
	if got := w.latest(t, l); got != 3 {
		t.Fatalf("after a restart the witness holds size %d, want 3", got)
	}
	var stale *witnessproto.StaleError
	if _, err := w.Add(l.request(0, 3)); !errors.As(err, &stale) || stale.Size != 3 {
		t.Fatalf("after a restart old 0 got %v, want 409 with size 3", err)
	}
}

func TestKeyFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "witness.key")
	k, err := LoadOrCreateKey(path, "witness.example/w1", Ed25519)
	if err != nil {
		t.Fatal(err)
	}
	again, err := LoadOrCreateKey(path, "witness.example/w1", MLDSA44)
	if err != nil || again.VerifierKey != k.VerifierKey {
		t.Fatalf("the key read back is %v (%v), want the one created", again, err)
	}
	if _, err := LoadOrCreateKey(path, "witness.example/w2", Ed25519); err == nil {
		t.Fatal("a key of another name was accepted")
	}
	a, _ := GenerateKey("w", Ed25519)
	b, _ := GenerateKey("w", Ed25519)
	skey, _, _ := strings.Cut(a, "\n")
	_, vkey, _ := strings.Cut(b, "\n")
	if _, err := NewKey(skey + "\n" + vkey); err == nil {
		t.Fatal("a signer key with another key's verifier key was accepted")
	}
}
