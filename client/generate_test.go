package client_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// client.gen.go is what go generate makes of openapi.json now: a change of
// the contract without regenerating the client fails here.
func TestGeneratedClientIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the generator")
	}
	var out, errs bytes.Buffer
	cmd := exec.Command("go", "tool", "oapi-codegen", "-config", "oapi-codegen.yaml", "../openapi.json")
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("oapi-codegen: %v\n%s", err, errs.Bytes())
	}
	committed, err := os.ReadFile("client.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), committed) {
		t.Fatal("client.gen.go is not what openapi.json generates: run go generate ./client and commit the result")
	}
}

// typescript/schema.d.ts is what openapi-typescript makes of openapi.json
// now, as make web runs it.
func TestTypeScriptClientIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	gen := filepath.Join("..", "node_modules", ".bin", "openapi-typescript")
	if _, err := os.Stat(gen); err != nil {
		t.Skip("node_modules is not installed (make test installs it)")
	}
	out := filepath.Join(t.TempDir(), "schema.d.ts")
	cmd := exec.Command(gen, "../openapi.json", "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("openapi-typescript: %v\n%s", err, b)
	}
	fresh, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join("typescript", "schema.d.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, committed) {
		t.Fatal("typescript/schema.d.ts is not what openapi.json generates: run make web and commit the result")
	}
}
