package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// build is one handler binary the tool measures, named in its tables.
type build struct {
	name string
	bin  string
}

// builds returns the handler under test (bin, or ./handler built into
// tmp) and, when compare names a git revision, the handler built from
// that revision's tree, so that one run measures both on the same machine
// at the same time of day.
func builds(bin, compare, tmp string) ([]build, error) {
	this := build{name: "this build", bin: bin}
	if bin == "" {
		this.bin = filepath.Join(tmp, "handler")
		if err := goBuild(".", this.bin); err != nil {
			return nil, err
		}
	}
	if compare == "" {
		return []build{this}, nil
	}
	rev, err := exec.Command("git", "rev-parse", "--short", compare+"^{commit}").Output()
	if err != nil {
		return nil, fmt.Errorf("-compare %s: not a commit of this repository: %v", compare, err)
	}
	name := strings.TrimSpace(string(rev))
	src := filepath.Join(tmp, "src-"+name)
	if err := os.MkdirAll(src, 0o700); err != nil {
		return nil, err
	}
	// The revision's tree, as committed, without touching the repository's
	// worktrees.
	archive := exec.Command("git", "archive", "--format=tar", name)
	extract := exec.Command("tar", "-x", "-C", src)
	var errs bytes.Buffer
	archive.Stderr, extract.Stderr = &errs, &errs
	if extract.Stdin, err = archive.StdoutPipe(); err != nil {
		return nil, err
	}
	if err := extract.Start(); err != nil {
		return nil, err
	}
	if err := archive.Run(); err != nil {
		_ = extract.Wait()
		return nil, fmt.Errorf("git archive %s: %v: %s", name, err, errs.Bytes())
	}
	if err := extract.Wait(); err != nil {
		return nil, fmt.Errorf("extract %s: %v: %s", name, err, errs.Bytes())
	}
	other := build{name: name, bin: filepath.Join(tmp, "handler-"+name)}
	if err := goBuild(src, other.bin); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return []build{this, other}, nil
}

// goBuild builds the handler of the module in dir into out, as make stage
// builds it (callgrind needs CGO_ENABLED=0).
func goBuild(dir, out string) error {
	cmd := exec.Command("go", "build", "-o", out, "./handler")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build: %v: %s", err, b)
	}
	return nil
}
