package client_test

import (
	"bytes"
	"os"
	"os/exec"
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
