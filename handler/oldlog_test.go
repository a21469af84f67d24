package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// getAs GETs url as user (anonymously when user is empty).
func getAs(t *testing.T, url, user string) (int, http.Header, []byte) {
	t.Helper()
	return callAs(t, http.MethodGet, url, user, "")
}

// callAs sends a request with a JSON body (none when empty) as user.
func callAs(t *testing.T, method, url, user, body string) (int, http.Header, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if user != "" {
		req.Header.Set("X-User-Id", user)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// copyDir copies the files of src, one level of folders deep, to dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		to := filepath.Join(dst, strings.TrimPrefix(path, src))
		if d.IsDir() {
			return os.MkdirAll(to, 0o700)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A data directory written by the build before the log's leaves stopped
// naming their versions keeps verifying: its todos' histories, their
// proofs (leaves of the first encoding) and the admin's audit of the whole
// log. Its entry bundles, whose leaves name users, are served to the log's
// administrators only, its hash tiles to anyone; a new version is logged
// with a leaf that names nothing, and the log stays one tree.
func TestLogOfAnEarlierBuild(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, filepath.Join("testdata", "leaf-v1-store"), dir)
	p := startProc(t, "DATA_DIR="+dir, "ADMIN_USERS=auditor")
	_, _, list := getAs(t, p.url("/api/todos"), "alice")
	var page struct{ Items []struct{ ID string } }
	if err := json.Unmarshal(list, &page); err != nil || len(page.Items) != 1 {
		t.Fatalf("alice's todos: %s", list)
	}
	id := page.Items[0].ID
	verify := func() map[string]any {
		code, _, b := getAs(t, p.url("/api/todos/"+id+"/history/verify"), "alice")
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil || code != 200 {
			t.Fatalf("verify: %d %s", code, b)
		}
		return v
	}
	if v := verify(); v["verified"] != true || v["logged"] != 2.0 {
		t.Fatalf("verify of the earlier build's history: %v", v)
	}
	leafOf := func(version string) []byte {
		code, _, b := getAs(t, p.url("/api/todos/"+id+"/history/proof?version="+version), "alice")
		var proof struct{ Leaf string }
		if err := json.Unmarshal(b, &proof); err != nil || code != 200 {
			t.Fatalf("proof of version %s: %d %s", version, code, b)
		}
		leaf, _ := base64.StdEncoding.DecodeString(proof.Leaf)
		return leaf
	}
	if leaf := leafOf("1"); !bytes.HasPrefix(leaf, []byte("todoaudit/leaf/v1\n")) || !bytes.Contains(leaf, []byte("owner alice")) {
		t.Fatalf("version 1's leaf: %q", leaf)
	}

	bundle := p.url("/api/log/tile/entries/000.p/3")
	if code, _, b := getAs(t, bundle, ""); code != http.StatusUnauthorized && code != http.StatusForbidden {
		t.Fatalf("a stranger reads the entry bundle of named leaves: %d %q", code, b)
	}
	if code, _, b := getAs(t, bundle, "alice"); code != http.StatusForbidden {
		t.Fatalf("a user who is no admin reads the entry bundle of named leaves: %d %q", code, b)
	}
	code, h, b := getAs(t, bundle, "auditor")
	if code != 200 || !bytes.Contains(b, []byte("owner bob")) || !strings.Contains(h.Get("Cache-Control"), "private") {
		t.Fatalf("the admin's read of the entry bundle: %d %q %q", code, h.Get("Cache-Control"), b)
	}
	if code, h, _ := getAs(t, p.url("/api/log/tile/0/000.p/3"), ""); code != 200 || h.Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Fatalf("a stranger's read of the partial hash tile: %d, Cache-Control %q", code, h.Get("Cache-Control"))
	}

	if code, _, b := callAs(t, http.MethodPut, p.url("/api/todos/"+id), "alice", `{"category":"Work","title":"third"}`); code != 200 {
		t.Fatalf("alice's edit: %d %s", code, b)
	}
	deadline := time.Now().Add(30 * time.Second)
	for verify()["logged"] != 3.0 {
		if time.Now().After(deadline) {
			t.Fatalf("version 3 not logged: %v; stderr %s", verify(), p.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if v := verify(); v["verified"] != true {
		t.Fatalf("verify after a new version: %v", v)
	}
	if leaf := leafOf("3"); !bytes.HasPrefix(leaf, []byte("todoaudit/leaf/v2\nhash ")) || len(leaf) != len("todoaudit/leaf/v2\nhash \n")+64 {
		t.Fatalf("version 3's leaf: %q", leaf)
	}
	if verified, entries, pending, problems := logAudit(t, p); !verified || entries != 4 || pending != 0 {
		t.Fatalf("the admin's audit of the log: verified %v, %v entries, %v pending, %v", verified, entries, pending, problems)
	}
}
