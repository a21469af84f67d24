package bolt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// FileError is a store file that cannot be used as it is: empty, not a
// store at all, truncated or corrupted. Retrying cannot help; its message
// names the file and what to do.
type FileError struct {
	Path    string
	Problem string
}

func (e *FileError) Error() string {
	return fmt.Sprintf("embedded store file %s %s; restore it from a backup, or move it out of DATA_DIR to start a new, empty store", e.Path, e.Problem)
}

// The parts of bbolt's file format that verifyFile reads: every page starts
// with a header (id, flags, element count, overflow page count); pages 0 and
// 1 hold the two meta pages, the newest valid one of which names the root
// bucket's page and the high-water mark (the number of pages in use).
const (
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	noFreelist     = ^uint64(0)
	pageHeaderSize = 16
	elementSize    = 16 // a branch or leaf element
	bucketHeader   = 16 // a bucket value: root page id, sequence
	metaSize       = 64 // through the checksum
	branchPage     = 0x01
	leafPage       = 0x02
	freelistPage   = 0x10
	bucketEntry    = 0x01 // a leaf element that is a nested bucket
	maxTreeDepth   = 64
	minPageSize    = 1024
	maxPageSize    = 64 << 10
)

var le = binary.LittleEndian

// meta is a decoded meta page.
type meta struct {
	pageSize uint32
	root     uint64
	freelist uint64
	pgid     uint64 // high-water mark
	txid     uint64
}

var (
	errNoMagic  = errors.New("no bbolt header")
	errVersion  = errors.New("unknown format version")
	errChecksum = errors.New("checksum mismatch")
)

// readMeta decodes the meta page at off.
func readMeta(f io.ReaderAt, off int64) (meta, error) {
	var b [pageHeaderSize + metaSize]byte
	if _, err := f.ReadAt(b[:], off); err != nil {
		return meta{}, errNoMagic
	}
	m := b[pageHeaderSize:]
	switch {
	case le.Uint32(m[0:]) != boltMagic:
		return meta{}, errNoMagic
	case le.Uint32(m[4:]) != boltVersion:
		return meta{}, errVersion
	}
	h := fnv.New64a()
	h.Write(m[:56])
	if h.Sum64() != le.Uint64(m[56:]) {
		return meta{}, errChecksum
	}
	return meta{pageSize: le.Uint32(m[8:]), root: le.Uint64(m[16:]), freelist: le.Uint64(m[32:]),
		pgid: le.Uint64(m[40:]), txid: le.Uint64(m[48:])}, nil
}

// verifyFile checks an existing store file before bbolt maps it. bbolt
// trusts its file: a truncated one faults (SIGBUS) when read through the
// map, and damaged pages make it panic, some of them on goroutines of its
// own that nothing can recover. So verifyFile reads the file with plain
// reads and walks every page bbolt's open walks: both meta pages, then
// every bucket's tree, checking page ids, types, bounds, single references
// and key order. f must be locked against other writers.
func verifyFile(path string, f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	if size == 0 {
		return &FileError{path, "is empty (0 bytes): it holds no store, and is not started as an empty one"}
	}
	m, err := newestMeta(f, size)
	if err != nil {
		return &FileError{path, err.Error()}
	}
	psz := int64(m.pageSize)
	switch {
	case m.pageSize < minPageSize || m.pageSize > maxPageSize || m.pageSize&(m.pageSize-1) != 0:
		return &FileError{path, fmt.Sprintf("is corrupted: its header gives a page size of %d", m.pageSize)}
	case m.pgid < 3 || int64(m.pgid) > size/psz:
		return &FileError{path, fmt.Sprintf("is truncated: it has %d bytes, but its pages reach byte %d", size, int64(m.pgid)*psz)}
	}
	w := &walker{r: f, psz: int(psz), hwm: m.pgid, seen: make([]uint64, (m.pgid+63)/64)}
	if m.freelist != noFreelist {
		p, err := w.page(m.freelist)
		if err == nil && le.Uint16(p[8:]) != freelistPage {
			err = fmt.Errorf("page %d is not the free list its header names", m.freelist)
		}
		if err != nil {
			return &FileError{path, "is corrupted: " + err.Error()}
		}
	}
	if _, err := w.tree(m.root, nil, nil, 0); err != nil {
		return &FileError{path, "is corrupted: " + err.Error()}
	}
	return nil
}

// newestMeta returns the meta page bbolt would use: the valid one with the
// higher transaction id.
func newestMeta(f io.ReaderAt, size int64) (meta, error) {
	m0, err0 := readMeta(f, 0)
	var m1 meta
	var err1 error = errNoMagic
	if err0 == nil {
		m1, err1 = readMeta(f, int64(m0.pageSize))
	} else {
		// Without page 0 the page size is unknown: look for the second
		// meta page where each possible size puts it, as bbolt does.
		for psz := int64(minPageSize); psz <= maxPageSize && psz < size; psz *= 2 {
			if m, err := readMeta(f, psz); err == nil && int64(m.pageSize) == psz {
				m1, err1 = m, nil
				break
			} else if err1 == errNoMagic {
				err1 = err
			}
		}
	}
	switch {
	case err0 == nil && (err1 != nil || m0.txid >= m1.txid):
		return m0, nil
	case err1 == nil:
		return m1, nil
	case err0 == errNoMagic && err1 == errNoMagic:
		return meta{}, errors.New("is not a bbolt database (it has no bbolt header: a file of another kind, or overwritten)")
	case err0 == errVersion || err1 == errVersion:
		return meta{}, errors.New("has a bbolt format version this handler does not read")
	}
	return meta{}, errors.New("is corrupted: both of its header (meta) pages fail their checksums")
}

// walker reads pages by id and walks B+trees, remembering every page it
// has seen.
type walker struct {
	r    io.ReaderAt
	psz  int
	hwm  uint64
	seen []uint64 // bit set of page ids
}

// page reads page id with its overflow pages.
func (w *walker) page(id uint64) ([]byte, error) {
	if id < 2 || id >= w.hwm {
		return nil, fmt.Errorf("a reference to page %d, outside the pages in use (2 to %d)", id, w.hwm-1)
	}
	p := make([]byte, w.psz)
	if _, err := w.r.ReadAt(p, int64(id)*int64(w.psz)); err != nil {
		return nil, fmt.Errorf("page %d cannot be read: %v", id, err)
	}
	if got := le.Uint64(p); got != id {
		return nil, fmt.Errorf("page %d is zeroed or overwritten (its header says page %d)", id, got)
	}
	overflow := uint64(le.Uint32(p[12:]))
	if overflow >= w.hwm-id {
		return nil, fmt.Errorf("page %d claims %d overflow pages, beyond the pages in use", id, overflow)
	}
	for i := id; i <= id+overflow; i++ {
		if w.seen[i/64]&(1<<(i%64)) != 0 {
			return nil, fmt.Errorf("page %d is referenced twice", i)
		}
		w.seen[i/64] |= 1 << (i % 64)
	}
	if overflow > 0 {
		p = make([]byte, (overflow+1)*uint64(w.psz))
		if _, err := w.r.ReadAt(p, int64(id)*int64(w.psz)); err != nil {
			return nil, fmt.Errorf("page %d cannot be read: %v", id, err)
		}
	}
	return p, nil
}

// tree walks the B+tree rooted at page id, whose keys must lie in
// [lo, hi) (nil: unbounded), and returns its largest key.
func (w *walker) tree(id uint64, lo, hi []byte, depth int) ([]byte, error) {
	if depth > maxTreeDepth {
		return nil, fmt.Errorf("page %d is nested more than %d levels deep", id, maxTreeDepth)
	}
	p, err := w.page(id)
	if err != nil {
		return nil, err
	}
	switch flags := le.Uint16(p[8:]); flags {
	case branchPage:
		return w.branch(id, p, lo, hi, depth)
	case leafPage:
		return w.leaf(id, p, lo, hi, depth)
	default:
		return nil, fmt.Errorf("page %d has no valid page type (flags %#x)", id, flags)
	}
}

// leafElement returns the bounds-checked element i of leaf page p: its
// flags, key and value.
func leafElement(id uint64, p []byte, i int) (flags uint32, key, value []byte, err error) {
	off := pageHeaderSize + i*elementSize
	if off+elementSize > len(p) {
		return 0, nil, nil, fmt.Errorf("page %d has more elements than fit in it", id)
	}
	pos := off + int(le.Uint32(p[off+4:]))
	end := pos + int(le.Uint32(p[off+8:]))
	vend := end + int(le.Uint32(p[off+12:]))
	if pos < off || end < pos || vend < end || vend > len(p) {
		return 0, nil, nil, fmt.Errorf("page %d has element %d outside the page", id, i)
	}
	return le.Uint32(p[off:]), p[pos:end], p[end:vend], nil
}

// branchElement returns the bounds-checked element i of branch page p: its
// key and its child's page id.
func branchElement(id uint64, p []byte, i int) (key []byte, child uint64, err error) {
	off := pageHeaderSize + i*elementSize
	if off+elementSize > len(p) {
		return nil, 0, fmt.Errorf("page %d has more elements than fit in it", id)
	}
	pos := off + int(le.Uint32(p[off:]))
	end := pos + int(le.Uint32(p[off+4:]))
	if pos < off || end < pos || end > len(p) {
		return nil, 0, fmt.Errorf("page %d has element %d outside the page", id, i)
	}
	return p[pos:end], le.Uint64(p[off+8:]), nil
}

// inOrder checks key i of a page against the previous key (or, for i = 0,
// the lower bound) and the upper bound, as bbolt's own check does.
func inOrder(id uint64, i int, key, prev, hi []byte) error {
	switch {
	case prev != nil && bytes.Compare(prev, key) > 0, i > 0 && bytes.Equal(prev, key):
		return fmt.Errorf("page %d has its keys out of order", id)
	case hi != nil && bytes.Compare(key, hi) >= 0:
		return fmt.Errorf("page %d has a key beyond its parent's range", id)
	}
	return nil
}

func (w *walker) branch(id uint64, p, lo, hi []byte, depth int) ([]byte, error) {
	n := int(le.Uint16(p[10:]))
	keys := make([][]byte, n)
	children := make([]uint64, n)
	for i := range n {
		var err error
		if keys[i], children[i], err = branchElement(id, p, i); err != nil {
			return nil, err
		}
	}
	running := lo
	for i := range n {
		if err := inOrder(id, i, keys[i], running, hi); err != nil {
			return nil, err
		}
		next := hi
		if i < n-1 {
			next = keys[i+1]
		}
		largest, err := w.tree(children[i], keys[i], next, depth+1)
		if err != nil {
			return nil, err
		}
		running = largest
	}
	return running, nil
}

func (w *walker) leaf(id uint64, p, lo, hi []byte, depth int) ([]byte, error) {
	prev := lo
	var last []byte
	for i := range int(le.Uint16(p[10:])) {
		flags, key, value, err := leafElement(id, p, i)
		if err != nil {
			return nil, err
		}
		if err := inOrder(id, i, key, prev, hi); err != nil {
			return nil, err
		}
		if flags&bucketEntry != 0 {
			if err := w.bucket(id, value, depth+1); err != nil {
				return nil, err
			}
		}
		prev, last = key, key
	}
	return last, nil
}

// bucket walks a nested bucket: its own tree, or its inline page (a leaf
// page stored inside the value, page id 0).
func (w *walker) bucket(id uint64, value []byte, depth int) error {
	if len(value) < bucketHeader {
		return fmt.Errorf("page %d has a bucket entry too short to be one", id)
	}
	if root := le.Uint64(value); root != 0 {
		_, err := w.tree(root, nil, nil, depth)
		return err
	}
	inline := value[bucketHeader:]
	if len(inline) < pageHeaderSize || le.Uint16(inline[8:]) != leafPage {
		return fmt.Errorf("page %d has an inline bucket that is not a leaf page", id)
	}
	_, err := w.leaf(id, inline, nil, nil, depth)
	return err
}
