package main

import (
	"cmp"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"go.etcd.io/bbolt"

	"github.com/todoaudit/todo/bolt"
)

// storeBytes creates n todos through the handler on the embedded store
// (the audit on), as fast as 32 clients can or, when every is set, one at
// a time that far apart, as a quiet deployment writes: then each of the
// log's passes holds a leaf or two. It waits until the audit, and the log
// when the handler keeps one, hold every version, stops the handler and
// prints where the file's bytes go: key and value bytes per bucket path
// (container, then its inner buckets) with the pages each allocates and how
// full they are, and the pages bbolt holds free. With several builds it
// does so for each, then prints the bytes the log keeps a leaf for each,
// side by side.
func storeBytesOf(bs []build, tmp string, n int, every time.Duration) error {
	perLeaf := make([]float64, len(bs))
	for i, b := range bs {
		fmt.Printf("%s:\n", b.name)
		var err error
		if perLeaf[i], err = storeBytes(b.bin, filepath.Join(tmp, fmt.Sprint("bytes", i)), n, every); err != nil {
			return fmt.Errorf("%s: %w", b.name, err)
		}
		fmt.Println()
	}
	fmt.Printf("%-40s", "log bytes a leaf (keys and values)")
	for i, b := range bs {
		fmt.Printf(" %12s %6.0f B", b.name, perLeaf[i])
	}
	fmt.Println()
	return nil
}

// logSettles is how long storeBytes leaves a handler whose log caught up
// running before it stops it: the grace after which the integrator
// removes the pieces of full tiles (transparency.DefaultPieceGrace, 20 s),
// plus the 30 s within which an idle handler's integrator passes.
const logSettles = 55 * time.Second

// storeBytes is storeBytesOf for one handler, its data in dir: it returns
// the bytes of the log's documents (the leases container's) and of its
// leaf index (key sets named tlog-*) a leaf.
func storeBytes(bin, dir string, n int, every time.Duration) (float64, error) {
	h, err := startHandler(bin, dir)
	if err != nil {
		return 0, err
	}
	defer h.stop()
	c := newClient(32)
	if every > 0 {
		err = createPaced(c, h.base, n, every)
	} else {
		err = createAtOnce(c, h.base, n)
	}
	if err != nil {
		return 0, err
	}
	if err := waitAudit(c, h.base); err != nil {
		return 0, err
	}
	logs, err := keepsLog(c, h.base)
	if err != nil {
		return 0, err
	}
	if logs {
		if err := waitLog(c, h.base, int64(n)); err != nil {
			return 0, err
		}
		time.Sleep(logSettles)
	}
	h.stop()

	file := filepath.Join(dir, "store.db")
	fi, err := os.Stat(file)
	if err != nil {
		return 0, err
	}
	db, err := bbolt.Open(file, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		return 0, err
	}
	defer db.Close() // closed once more: a second Close does nothing
	sizes := map[string]*bucketBytes{}
	err = db.View(func(tx *bbolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bbolt.Bucket) error {
			walkBucket(sizes, string(name), b)
			return nil
		})
	})
	if err != nil {
		return 0, err
	}
	var pages bbolt.BucketStats
	_ = db.View(func(tx *bbolt.Tx) error {
		_ = tx.ForEach(func(_ []byte, b *bbolt.Bucket) error {
			pages.Add(b.Stats())
			return nil
		})
		return nil
	})
	stats := db.Stats()
	pace := "from 32 clients"
	if every > 0 {
		pace = "one every " + every.String()
	}
	fmt.Printf("embedded store after %d todos created %s, audit and log caught up: file %d bytes, %.0f bytes a todo\n", n, pace, fi.Size(), float64(fi.Size())/float64(n))
	fmt.Printf("%-40s %10s %12s %12s %10s %10s %6s\n", "bucket", "keys", "key bytes", "value bytes", "per todo", "pages", "fill")
	names := make([]string, 0, len(sizes))
	for k := range sizes {
		names = append(names, k)
	}
	slices.Sort(names)
	var total, logBytes int64
	for _, k := range names {
		s := sizes[k]
		total += s.keys + s.values
		if strings.HasPrefix(k, "c/leases") || strings.HasPrefix(k, "k/tlog-") {
			logBytes += s.keys + s.values
		}
		fmt.Printf("%-40s %10d %12d %12d %10.0f %10.0f %5.0f%%\n", k, s.n, s.keys, s.values, float64(s.keys+s.values)/float64(n),
			float64(s.alloc)/float64(n), 100*float64(s.inuse)/float64(max(s.alloc, 1)))
	}
	pageSize := int64(db.Info().PageSize)
	inuse := int64(pages.BranchInuse + pages.LeafInuse)
	alloc := int64(pages.BranchAlloc + pages.LeafAlloc)
	free := int64(stats.FreePageN+stats.PendingPageN) * pageSize
	fmt.Printf("%-40s %36d %10.0f\n", "keys and values, all buckets", total, float64(total)/float64(n))
	fmt.Printf("%-40s %36d %10.0f\n", "page bytes in use (with page headers)", inuse, float64(inuse)/float64(n))
	fmt.Printf("%-40s %36d %10.0f\n", "page bytes allocated to buckets", alloc, float64(alloc)/float64(n))
	fmt.Printf("%-40s %36d %10.0f\n", "free and pending pages", free, float64(free)/float64(n))
	fmt.Printf("%-40s %36d %10.0f\n", "file not in any bucket or free list", fi.Size()-alloc-free, float64(fi.Size()-alloc-free)/float64(n))
	if err := db.Close(); err != nil {
		return 0, err
	}
	// What cmd/store-compact makes of the same file.
	_, after, err := bolt.Compact(filepath.Dir(file))
	if err != nil {
		return 0, err
	}
	fmt.Printf("%-40s %36d %10.0f\n", "the file compacted (cmd/store-compact)", after, float64(after)/float64(n))
	return float64(logBytes) / float64(n), nil
}

// createAtOnce creates n todos from 32 clients.
func createAtOnce(c *http.Client, base string, n int) error {
	var made atomic.Int64
	errs := make(chan error, 32)
	for range 32 {
		go func() {
			for made.Add(1) <= int64(n) {
				if _, err := sendPost(c, base); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	var err error
	for range 32 {
		err = cmp.Or(err, <-errs)
	}
	return err
}

// createPaced creates n todos from one client, one every d.
func createPaced(c *http.Client, base string, n int, d time.Duration) error {
	tick := time.NewTicker(d)
	defer tick.Stop()
	for range n {
		if _, err := sendPost(c, base); err != nil {
			return err
		}
		<-tick.C
	}
	return nil
}

// bucketBytes is the count and the key and value bytes of one bucket path,
// and the bytes of the pages it holds itself (not its inner buckets'):
// allocated, and in use by elements and page headers.
type bucketBytes struct{ n, keys, values, alloc, inuse int64 }

// walkBucket adds b's keys, values and pages under path, and its inner
// buckets' under path/name.
func walkBucket(sizes map[string]*bucketBytes, path string, b *bbolt.Bucket) {
	s := sizes[path]
	if s == nil {
		s = &bucketBytes{}
		sizes[path] = s
	}
	// bbolt counts an inner bucket's pages in its parent's statistics too.
	st := b.Stats()
	s.alloc += int64(st.LeafAlloc + st.BranchAlloc)
	s.inuse += int64(st.LeafInuse + st.BranchInuse)
	_ = b.ForEach(func(k, v []byte) error {
		if v == nil {
			if inner := b.Bucket(k); inner != nil {
				in := inner.Stats()
				s.alloc -= int64(in.LeafAlloc + in.BranchAlloc)
				s.inuse -= int64(in.LeafInuse + in.BranchInuse)
				walkBucket(sizes, path+"/"+printable(k), inner)
				return nil
			}
		}
		s.n++
		s.keys += int64(len(k))
		s.values += int64(len(v))
		return nil
	})
}

// printable names a bucket whose name may hold bytes that are not text.
func printable(k []byte) string {
	if strings.ToValidUTF8(string(k), "") == string(k) && !strings.ContainsFunc(string(k), func(r rune) bool { return r < 0x20 }) {
		return string(k)
	}
	return fmt.Sprintf("%x", k)
}
