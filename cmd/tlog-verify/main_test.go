package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/todoaudit/todo/app/apitest"
	"github.com/todoaudit/todo/transparency"
)

// published is what a running handler published, saved to files as a user
// would keep them.
type published struct {
	dir, base, key string
	skey           string // the log's signing key, to forge a fork with
	old, cur       string // two checkpoints, the older first
	proof, history string
	// the history in its second form, and its URL (which names no form)
	historySeeded, historyURL string
	bundles                   []string
	// exports of the history, NDJSON and CSV, under the checkpoint cur
	export, exportCSV string
}

func (p *published) save(t *testing.T, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func publish(t *testing.T) *published {
	skey, _, err := note.GenerateKey(nil, "todoaudit.local/log")
	if err != nil {
		t.Fatal(err)
	}
	a := apitest.Start(t, map[string]string{"AUDIT_PUMP": "on", "LOG_SIGNING_KEY": skey}, nil)
	c := &apitest.Client{T: t, Base: "http://" + a.Addr(), User: "alice"}
	settle := func() {
		if err := a.DrainAudit(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := a.IntegrateLog(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	p := &published{dir: t.TempDir(), base: c.Base + "/api/log", skey: skey}
	p.key = string(apitest.Want(t, c.Do("GET", "/api/log/key", nil), 200).Body)
	id := c.Create("Work", "v1")["id"].(string)
	settle()
	p.old = p.save(t, "old.checkpoint", apitest.Want(t, c.Do("GET", "/api/log/checkpoint", nil), 200).Body)
	apitest.Want(t, c.Do("PUT", "/api/todos/"+id, map[string]any{"category": "Work", "title": "v2"}), 200)
	c.Create("Work", "other")
	settle()
	p.cur = p.save(t, "cur.checkpoint", apitest.Want(t, c.Do("GET", "/api/log/checkpoint", nil), 200).Body)
	for v := 1; v <= 2; v++ {
		b := apitest.Want(t, c.Do("GET", fmt.Sprintf("/api/todos/%s/history/proof?version=%d", id, v), nil), 200).Body
		p.bundles = append(p.bundles, p.save(t, fmt.Sprintf("v%d.proof", v), b))
	}
	p.proof = p.save(t, "consistency.json", apitest.Want(t, c.Do("GET", "/api/log/consistency?from=1&to=3", nil), 200).Body)
	p.history = p.save(t, "history.json", apitest.Want(t, c.Do("GET", "/api/todos/"+id+"/history", nil), 200).Body)
	p.historySeeded = p.save(t, "history-seeded.json", apitest.Want(t, c.Do("GET", "/api/todos/"+id+"/history?form=2", nil), 200).Body)
	p.historyURL = c.Base + "/api/todos/" + id + "/history"
	p.export = p.save(t, "history.ndjson", apitest.Want(t, c.Do("GET", "/api/todos/"+id+"/history/export", nil), 200).Body)
	p.exportCSV = p.save(t, "history.csv", apitest.Want(t, c.Do("GET", "/api/todos/"+id+"/history/export", nil, "Accept: text/csv"), 200).Body)
	return p
}

func verify(args ...string) (int, string) {
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String() + errOut.String()
}

func TestVerifier(t *testing.T) {
	p := publish(t)
	key := "-key=" + p.key
	keyFile := "-key=@" + p.save(t, "log.key", []byte(p.key))
	goodTiles := filepath.Join(p.dir, "good-tiles")
	copyTiles(t, p.base, goodTiles)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"checkpoint", []string{key, "checkpoint", p.cur}},
		{"checkpoint from a URL with its tiles", []string{keyFile, "checkpoint", p.base + "/checkpoint", p.base}},
		{"proof", []string{key, "proof", p.bundles[0]}},
		{"consistency", []string{key, "consistency", p.old, p.cur, p.proof}},
		{"consistency fetched", []string{key, "consistency", p.old, p.cur, p.base + "/consistency?from=1&to=3"}},
		{"a checkpoint with itself", []string{key, "consistency", p.cur, p.cur}},
		{"history", []string{key, "history", p.history, p.bundles[0], p.bundles[1]}},
		{"history in the second form", []string{key, "history", p.historySeeded, p.bundles[0], p.bundles[1]}},
		{"history fetched", []string{key, "-header", "X-User-Id: alice", "history", p.historyURL, p.bundles[0], p.bundles[1]}},
		{"export with the tiles fetched", []string{key, "export", p.export, p.base}},
		{"CSV export with a directory of tiles", []string{key, "export", p.exportCSV, goodTiles}},
	} {
		if code, out := verify(c.args...); code != 0 {
			t.Errorf("%s: exit %d: %s", c.name, code, out)
		}
	}

	// Another key's checkpoint, even under the log's name.
	other, _, _ := note.GenerateKey(nil, "todoaudit.local/log")
	signer, _ := note.NewSigner(other)
	cp, _ := os.ReadFile(p.cur)
	text, _, _ := strings.Cut(string(cp), "\n\n")
	forged, _ := note.Sign(&note.Note{Text: text + "\n"}, signer)
	// The log's own key, signing a different tree of the same size.
	logSigner, _ := note.NewSigner(p.skey)
	c, _ := transparency.ParseCheckpoint(text + "\n")
	c.Root = tlog.RecordHash([]byte("another tree"))
	fork, _ := c.Sign(logSigner)
	tampered := bytes.Replace(cp, []byte("\n3\n"), []byte("\n4\n"), 1)
	bundle, _ := os.ReadFile(p.bundles[0])
	pb, err := transparency.ParseProofBundle(bundle)
	if err != nil || len(pb.Proof) == 0 {
		t.Fatalf("bundle %s: %v", bundle, err)
	}
	pb.Proof[0][0] ^= 1
	badProof, _ := json.Marshal(pb)
	history, _ := os.ReadFile(p.history)
	seeded, _ := os.ReadFile(p.historySeeded)
	exported, _ := os.ReadFile(p.export)
	exportedCSV, _ := os.ReadFile(p.exportCSV)
	tiles := filepath.Join(p.dir, "tiles")
	copyTiles(t, p.base, tiles)
	tile := filepath.Join(tiles, "tile", "0", "000.p", "3")
	b, _ := os.ReadFile(tile)
	b[0] ^= 1
	_ = os.WriteFile(tile, b, 0o600)
	bundles := filepath.Join(p.dir, "bundle-tiles")
	copyTiles(t, p.base, bundles)
	entries := filepath.Join(bundles, "tile", "entries", "000.p", "3")
	b, _ = os.ReadFile(entries)
	at := bytes.Index(b, []byte("hash ")) + len("hash ")
	if b[at] == '0' {
		b[at] = '1'
	} else {
		b[at] = '0'
	}
	_ = os.WriteFile(entries, b, 0o600)
	for _, c := range []struct {
		name, want string
		args       []string
	}{
		{"a tampered entry bundle", "entry 0 of bundle tile/entries/000.p/3 is not the tree's leaf 0", []string{key, "checkpoint", p.cur, bundles}},
		{"a checkpoint signed by another key", "not signed by", []string{key, "checkpoint", p.save(t, "forged", forged)}},
		{"a checkpoint edited", "does not verify", []string{key, "checkpoint", p.save(t, "tampered", tampered)}},
		{"a fork", "forked", []string{key, "consistency", p.cur, p.save(t, "fork", fork)}},
		{"a consistency proof for another tree", "does not extend", []string{key, "consistency", p.old, p.save(t, "fork2", fork), p.proof}},
		{"a tampered proof", "is not at index", []string{key, "proof", p.save(t, "bad.proof", badProof)}},
		{"a history edited", "does not match its hash", []string{key, "history", p.save(t, "edited", bytes.Replace(history, []byte(`"title":"v2"`), []byte(`"title":"v3"`), 1))}},
		{"a history in the second form edited", "does not match its hash", []string{key, "history",
			p.save(t, "edited-seeded", bytes.Replace(seeded, []byte(`"title":"v2"`), []byte(`"title":"v3"`), 1))}},
		{"a history in the second form with a seed altered", "does not match its hash", []string{key, "history",
			p.save(t, "reseeded", regexp.MustCompile(`"seed":"[0-9a-f]`).ReplaceAllFunc(seeded, flipLastHex))}},
		{"a tampered tile", "tiles", []string{key, "checkpoint", p.cur, tiles}},
		{"a CSV export edited", "does not match its commitment", []string{key, "export",
			p.save(t, "edited.csv", bytes.Replace(exportedCSV, []byte(`""title"":""v2""`), []byte(`""title"":""v3""`), 1)), p.base}},
		{"an export edited", "does not match its hash", []string{key, "export", p.save(t, "edited.ndjson", bytes.Replace(exported, []byte(`"title":"v2"`), []byte(`"title":"v3"`), 1)), p.base}},
		{"an export checked with a tampered tile", "tiles", []string{key, "export", p.exportCSV, tiles}},
		{"an export without tiles", "give the log's tiles", []string{key, "export", p.export}},
	} {
		code, out := verify(c.args...)
		if code != 1 || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, want 1 naming %q: %s", c.name, code, c.want, out)
		}
	}
	if code, _ := verify("checkpoint", p.cur); code != 2 {
		t.Errorf("no key: exit %d, want 2", code)
	}
}

// flipLastHex changes the last hex digit of b to another.
func flipLastHex(b []byte) []byte {
	out := bytes.Clone(b)
	if out[len(out)-1] == '0' {
		out[len(out)-1] = '1'
	} else {
		out[len(out)-1] = '0'
	}
	return out
}

// A history URL that names no form is asked for the second; one that
// names a form, or a file, is read as given.
func TestSeedForm(t *testing.T) {
	for src, want := range map[string]string{
		"http://h/api/todos/W:1/history":                            "http://h/api/todos/W:1/history?form=2",
		"https://h/api/todos/W:1/history?pageSize=5":                "https://h/api/todos/W:1/history?pageSize=5&form=2",
		"https://h/api/todos/W:1/history?form=1":                    "https://h/api/todos/W:1/history?form=1",
		"history.json":                                              "history.json",
		"https://h/api/todos/W:1/history?continuation=a%2Eb&form=2": "https://h/api/todos/W:1/history?continuation=a%2Eb&form=2",
	} {
		if got := seedForm(src); got != want {
			t.Errorf("seedForm(%q) = %q, want %q", src, got, want)
		}
	}
}

// copyTiles saves the tiles of the tree of size 3 under dir.
func copyTiles(t *testing.T, base, dir string) {
	t.Helper()
	vr := &verifier{client: http.DefaultClient}
	for _, p := range []string{"tile/0/000.p/3", "tile/entries/000.p/3"} {
		b, err := vr.read(base + "/" + p)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMain keeps the checkpoints the tests' runs remember out of the
// user's configuration directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tlog-verify-test")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
