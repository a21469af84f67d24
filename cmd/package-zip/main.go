// Command package-zip writes the deployment package of the Functions app:
// a zip of the staged script root (make stage's dist/) whose entries carry
// Unix modes, the handler's run bit included.
//
// The Functions host on Linux runs the handler from the extracted package;
// without the run bit it cannot start it (a known failure of custom
// handlers deployed from a zip that records no modes). Deployment tools
// zip differently: some record modes, some none, and a file system without
// modes (Windows) has none to record. So the package is made here, the
// same way on every machine, and every deploy path uploads it as it is.
//
//	go run ./cmd/package-zip dist bin/app.zip
//
// local.settings.json, the local host's settings, is left out.
package main

import (
	"archive/zip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Modes of the package's entries: the handler runs; the rest is read.
const (
	handlerMode fs.FileMode = 0o755
	fileMode    fs.FileMode = 0o644
)

// left out of the package: the local host's settings, never deployed.
const localSettings = "local.settings.json"

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: package-zip <staged dir> <package.zip>")
		os.Exit(2)
	}
	if err := write(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "package-zip:", err)
		os.Exit(1)
	}
}

// write zips the regular files under dir into a new file at out.
func write(dir, out string) (err error) {
	if _, err := os.Stat(filepath.Join(dir, "handler")); err != nil {
		return fmt.Errorf("%s has no handler: run make stage: %w", dir, err)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(out)
		}
	}()
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if name == localSettings || !d.Type().IsRegular() {
			return nil
		}
		return add(zw, path, name)
	})
	if err != nil {
		return err
	}
	return zw.Close()
}

// add writes one file as the entry name, with its Unix mode.
func add(zw *zip.Writer, path, name string) error {
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	info, err := src.Stat()
	if err != nil {
		return err
	}
	h, err := zip.FileInfoHeader(info)
	if err != nil {
		return err
	}
	h.Name, h.Method = name, zip.Deflate
	mode := fileMode
	if name == "handler" {
		mode = handlerMode
	}
	h.SetMode(mode)
	w, err := zw.CreateHeader(h)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, src)
	return err
}
