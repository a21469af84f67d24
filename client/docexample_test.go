package client_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The Go example in docs/api.md compiles against the generated client as
// it is: the block is a file but for its package clause.
func TestDocExampleCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the compiler")
	}
	doc, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "#### Go\n")
	if !ok {
		t.Fatal("docs/api.md has no Go section")
	}
	_, rest, ok = strings.Cut(rest, "```go\n")
	code, _, closed := strings.Cut(rest, "```\n")
	if !ok || !closed {
		t.Fatal("docs/api.md's Go section has no go code block")
	}
	// A directory whose name starts with _ is in the module, so the block
	// imports the client as a user's code would, and outside ./... .
	dir, err := os.MkdirTemp(".", "_docexample")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "example.go"), []byte("package docexample\n\n"+code), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("go", "vet", "./"+filepath.ToSlash(dir)).CombinedOutput(); err != nil {
		t.Fatalf("the example in docs/api.md does not compile: %v\n%s", err, out)
	}
}
