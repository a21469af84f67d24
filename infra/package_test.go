package infra

import (
	"archive/zip"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The package that azd and make deploy-app upload, built as they build it
// (make package, which stages first), records the handler's run bit: the
// Functions host on Linux cannot start a handler extracted without it.
// Staging again keeps the local host's dist/local.settings.json, which
// make start copies there only the first time, and the package leaves it
// out.
func TestPackageKeepsHandlerRunBit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the linux handler")
	}
	tmp := t.TempDir()
	dist, pkg := filepath.Join(tmp, "dist"), filepath.Join(tmp, "app.zip")
	if err := os.MkdirAll(dist, 0o755); err != nil {
		t.Fatal(err)
	}
	local := []byte(`{"Values":{"AUTH_MODE":"single","edited":"by hand"}}`)
	if err := os.WriteFile(filepath.Join(dist, "local.settings.json"), local, 0o600); err != nil {
		t.Fatal(err)
	}
	// A file of an earlier stage that no longer belongs is removed.
	if err := os.WriteFile(filepath.Join(dist, "stale.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "-C", "..", "package", "DIST="+dist, "PACKAGE="+pkg)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make package: %v\n%s", err, out)
	}
	if got, err := os.ReadFile(filepath.Join(dist, "local.settings.json")); err != nil || string(got) != string(local) {
		t.Errorf("make stage lost dist/local.settings.json: %q %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(dist, "stale.txt")); err == nil {
		t.Error("make stage left a stale file in dist/")
	}

	zr, err := zip.OpenReader(pkg)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	entries := map[string]fs.FileMode{}
	for _, f := range zr.File {
		entries[f.Name] = f.Mode()
	}
	if m, ok := entries["handler"]; !ok || !m.IsRegular() || m.Perm() != 0o755 {
		t.Errorf("handler in the package: present %v, mode %v, want a regular file with mode 0755", ok, m)
	}
	for _, name := range []string{"host.json", "GetTodo/function.json", "AuditTrigger/function.json"} {
		if m, ok := entries[name]; !ok || m.Perm() != 0o644 {
			t.Errorf("%s in the package: present %v, mode %v", name, ok, m)
		}
	}
	if _, ok := entries["local.settings.json"]; ok {
		t.Error("the package carries local.settings.json")
	}
}
