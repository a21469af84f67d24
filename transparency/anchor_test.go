package transparency

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The newest anchor is the non-empty checkpoint file of the largest size:
// an empty one (a crash between its creation and its write) anchors
// nothing, and other files are not anchors.
func TestDirAnchorsNewest(t *testing.T) {
	ctx := context.Background()
	d := &DirAnchors{Dir: filepath.Join(t.TempDir(), "anchors")}
	if b, err := d.Newest(ctx); b != nil || err != nil {
		t.Fatalf("no directory: %q, %v", b, err)
	}
	for _, n := range []int64{9, 100, 11, 2} {
		if _, err := d.Put(ctx, n, []byte{byte(n)}); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{anchorName(500): "", "99999999999999999999.note": "x", "999.checkpoint": "x"} {
		if err := os.WriteFile(filepath.Join(d.Dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := d.Newest(ctx); err != nil || string(b) != string([]byte{100}) {
		t.Fatalf("newest %q, %v; want the checkpoint of size 100", b, err)
	}
	if _, err := d.Put(ctx, 100, []byte{1}); err != ErrAnchored {
		t.Fatalf("a second checkpoint of size 100: %v", err)
	}
}

// The directory is listed again only when its modification time changes:
// while it stays, the newest checkpoint read or written is the answer, and
// a checkpoint written since is seen once the time moves.
func TestDirAnchorsListedOnChange(t *testing.T) {
	ctx := context.Background()
	d := &DirAnchors{Dir: t.TempDir()}
	for _, n := range []int64{1, 2} {
		if _, err := d.Put(ctx, n, []byte{byte(n)}); err != nil {
			t.Fatal(err)
		}
	}
	newest := func(want byte) {
		t.Helper()
		if b, err := d.Newest(ctx); err != nil || string(b) != string([]byte{want}) {
			t.Fatalf("newest %q, %v; want %q", b, err, []byte{want})
		}
	}
	newest(2)
	// A change to a file's bytes is no change to the directory: the file
	// is not read again.
	if err := os.Chmod(filepath.Join(d.Dir, anchorName(2)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.Dir, anchorName(2)), []byte{20}, 0o600); err != nil {
		t.Fatal(err)
	}
	newest(2)
	if _, err := d.Put(ctx, 3, []byte{3}); err != nil {
		t.Fatal(err)
	}
	newest(3)
	// Another process's checkpoint, at another modification time.
	if err := os.WriteFile(filepath.Join(d.Dir, anchorName(4)), []byte{4}, 0o400); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(d.Dir, later, later); err != nil {
		t.Fatal(err)
	}
	newest(4)
}
