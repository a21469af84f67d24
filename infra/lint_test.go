package infra_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// lint runs infra/bicep-lint.mjs (the `make lint` Bicep check) on paths and
// returns its exit code and output. It skips the test when node_modules has
// not been installed (npm ci), since the grammar comes from there.
func lint(t *testing.T, paths ...string) (int, string) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"web-tree-sitter", "tree-sitter-bicep"} {
		if _, err := os.Stat(filepath.Join(root, "node_modules", pkg, "package.json")); err != nil {
			t.Skipf("node_modules/%s is not installed: run npm ci to enable the Bicep syntax lint test", pkg)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node_modules is installed but node is not on PATH: %v", err)
	}
	cmd := exec.Command(node, append([]string{filepath.Join(root, "infra", "bicep-lint.mjs")}, paths...)...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		t.Fatalf("running the lint: %v\n%s", err, out)
	}
	return 0, string(out)
}

func TestBicepLintPassesOnInfra(t *testing.T) {
	code, out := lint(t, bicepDir)
	if code != 0 {
		t.Fatalf("bicep-lint on %s: exit %d\n%s", bicepDir, code, out)
	}
	if !strings.Contains(out, "no syntax errors") {
		t.Fatalf("unexpected lint output:\n%s", out)
	}
}

func TestBicepLintFailsOnBrokenFiles(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		file, src string
		want      string // file:line:col the lint must report
	}{
		// An object that is never closed.
		{"unclosed.bicep", "param name string\n\nresource sa 'Microsoft.Storage/storageAccounts@2023-05-01' = {\n  name: name\n  location: 'westeurope'\n", "unclosed.bicep:3:1"},
		// A property without a value.
		{"novalue.bicep", "var settings = {\n  AUTH_MODE: 'easyauth'\n  PARTITION_SCHEME:\n}\n", "novalue.bicep:"},
		// A parameters file with an assignment that has no value.
		{"broken.bicepparam", "using 'main.bicep'\n\nparam location =\nparam authMode = 'single'\n", "broken.bicepparam:"},
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.file)
		if err := os.WriteFile(path, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out := lint(t, path)
		if code != 1 {
			t.Errorf("%s: lint exit %d, want 1 (syntax errors)\n%s", c.file, code, out)
		}
		if !strings.Contains(out, c.want) || !regexp.MustCompile(regexp.QuoteMeta(c.file)+`:\d+:\d+: `).MatchString(out) {
			t.Errorf("%s: lint output does not report %s as file:line:col:\n%s", c.file, c.want, out)
		}
	}

	// A valid parameters file passes: untyped param assignments are
	// handled, so the failure above is the missing value.
	good := filepath.Join(dir, "good.bicepparam")
	if err := os.WriteFile(good, []byte("using 'main.bicep'\n\nparam location = readEnvironmentVariable('AZURE_LOCATION', 'westeurope')\nparam buckets = int('8')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := lint(t, good); code != 0 {
		t.Errorf("good.bicepparam: lint exit %d, want 0\n%s", code, out)
	}

	// A missing path is a usage error, not a pass.
	if code, out := lint(t, filepath.Join(dir, "absent")); code != 2 {
		t.Errorf("absent path: lint exit %d, want 2\n%s", code, out)
	}
}
