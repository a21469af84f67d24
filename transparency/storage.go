package transparency

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/jsondoc"
	"github.com/todoaudit/todo/store"
)

// The log's documents live in the leases container (partitioned by id),
// one logical partition each:
//
//   - tlog-state: the tree (size and root) and the leaves of its latest
//     append, with the tree they extended, so that the tiles of the tree
//     can always be rebuilt from what was committed (see Integrator);
//   - tlog-tile-<path>: one C2SP tile or entry bundle, its path with "/"
//     spelt "_" (ids cannot hold a slash); a partial one may continue the
//     document of a narrower width (see pieces);
//   - tlog-leaf-<digest>-v<n>: the index of one version's leaf, where the
//     store has no key set (see KeySet), or an earlier build wrote it;
//   - tlog-checkpoint: the latest signed checkpoint;
//   - tlog-pieces-collected: how far the pieces of full tiles are gone
//     (see collect).
const (
	stateID      = "tlog-state"
	checkpointID = "tlog-checkpoint"
)

// state is the tlog-state document.
type state struct {
	ID   string    `json:"id"`
	Size int64     `json:"size"`
	Root tlog.Hash `json:"root"`
	// PrevSize and PrevRoot are the tree Leaves were appended to.
	PrevSize int64     `json:"prevSize"`
	PrevRoot tlog.Hash `json:"prevRoot"`
	Leaves   [][]byte  `json:"leaves"`
	// IDs are the ids of Leaves' index documents, in order: a LeafV2 leaf
	// does not name its version. A state written before LeafV2 has none,
	// and its leaves name theirs.
	IDs []string `json:"ids,omitempty"`
	// Since is the audit watermark: the next pass reads the records with
	// a _ts from it on.
	Since int64 `json:"since"`
	// NewestAt bounds the times (dateCreatedUtc) of the leaves in the log:
	// a record of a later time is not in it, so a pass need not look for
	// its index document. Zero in a state written before it was kept.
	NewestAt time.Time `json:"newestAt,omitzero"`
	etag     string    `json:"-"`
}

func (s *state) tree() tlog.Tree { return tlog.Tree{N: s.Size, Hash: s.Root} }

// mayHold reports whether a leaf of time at may be in the log of s, so
// that a pass must look for its index document before it appends one: not
// when the log is empty or at is later than every leaf in it.
func (s *state) mayHold(at time.Time) bool {
	return s.Size > 0 && (s.NewestAt.IsZero() || !at.After(s.NewestAt))
}

type tileDoc struct {
	ID string `json:"id"`
	// From is the width of the same tile whose document holds the hashes
	// or entries before Data's; 0 when Data is the whole tile.
	From int    `json:"from,omitempty"`
	Data []byte `json:"data"`
}

// appendJSON appends d as json.Marshal encodes it when Data is not nil:
// an append writes its tiles, its entry bundle and an index document a
// leaf, and encoding/json's reflection and the copy out of its buffer were
// a good part of their cost.
func (d tileDoc) appendJSON(b []byte) []byte {
	b = appendMember(b, '{', "id", d.ID)
	if d.From != 0 {
		b = append(b, `,"from":`...)
		b = strconv.AppendInt(b, int64(d.From), 10)
	}
	return appendBytes(b, "data", d.Data)
}

// decodeTileDoc decodes a stored tile document as json.Unmarshal does,
// without its scan of the whole document and its reflection: a proof
// reads an entry bundle of up to 256 leaves, tens of kilobytes of base64,
// to take one of them.
func decodeTileDoc(body []byte) (tileDoc, error) {
	var d tileDoc
	var err error
	each := jsondoc.Each(body, func(name, value []byte) bool {
		// Names match as encoding/json matches them: ignoring case.
		switch {
		case bytes.EqualFold(name, []byte("id")):
			d.ID, err = jsondoc.String(value)
		case bytes.EqualFold(name, []byte("from")):
			var from int64
			from, err = jsondoc.Int(value)
			d.From = int(from)
		case bytes.EqualFold(name, []byte("data")):
			var s string
			if s, err = jsondoc.String(value); err == nil {
				d.Data, err = base64.StdEncoding.DecodeString(s)
			}
		}
		return err == nil
	})
	return d, cmp.Or(each, err)
}

// indexDoc locates one version's leaf: its index, no more. The leaf is in
// the entry bundles, and the id names the version; a document an earlier
// build wrote holds the entity key, the version and the leaf as well, which
// a read ignores.
type indexDoc struct {
	ID    string `json:"id"`
	Index int64  `json:"index"`
}

// appendJSON appends d as json.Marshal encodes it.
func (d indexDoc) appendJSON(b []byte) []byte {
	b = appendMember(b, '{', "id", d.ID)
	b = append(b, `,"index":`...)
	b = strconv.AppendInt(b, d.Index, 10)
	return append(b, '}')
}

// appendMember appends sep, then the member name: value, value a string.
func appendMember(b []byte, sep byte, name, value string) []byte {
	b = append(b, sep, '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return jsondoc.AppendString(b, value, jsondoc.JSON)
}

// appendBytes appends the last member of an object, name: value in
// base64, as encoding/json writes a []byte, and closes the object.
func appendBytes(b []byte, name string, value []byte) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, `":"`...)
	b = base64.StdEncoding.AppendEncode(b, value)
	return append(b, '"', '}')
}

type checkpointDoc struct {
	ID   string `json:"id"`
	Size int64  `json:"size"`
	Note string `json:"note"`
	// TS is the store's time of the write, read back and never written.
	TS int64 `json:"_ts,omitempty"`
	// Publish is PublishAlways or PublishWithQuorum: whether the note was
	// published whatever its witnesses answered, or only with its quorum;
	// empty for a log without witnesses.
	Publish string `json:"publish,omitempty"`
	// Cosigners are the witnesses whose cosignature the note carries.
	Cosigners []Cosignature `json:"cosigners,omitempty"`
}

func tileID(t tlog.Tile) string { return "tlog-tile-" + strings.ReplaceAll(TilePath(t), "/", "_") }

// indexID is the id of a version's index document: a digest of the entity
// key, which holds slashes, and the version.
func indexID(entityKey string, version int64) string {
	sum := sha256.Sum256([]byte(entityKey))
	return indexIDPrefix + hex.EncodeToString(sum[:20]) + "-v" + strconv.FormatInt(version, 10)
}

// indexIDPrefix begins the id of every index document.
const indexIDPrefix = "tlog-leaf-"

func read[T any](ctx context.Context, c store.Container, id string, v *T) (string, error) {
	it, err := c.Read(ctx, store.PartitionKey{id}, id)
	if err != nil {
		return "", err
	}
	return it.ETag, decode(it, id, v)
}

func decode[T any](it store.Item, id string, v *T) error {
	if err := json.Unmarshal(it.Body, v); err != nil {
		return todo.Wrap(todo.Internal, err, "log document "+id+" does not decode")
	}
	return nil
}

// loadState reads the log state; the empty tree before the first append.
// known is a state read or written before: when the store's state has its
// ETag, it is known and not decoded again.
func loadState(ctx context.Context, c store.Container, known *state) (*state, error) {
	it, err := c.Read(ctx, store.PartitionKey{stateID}, stateID)
	if todo.IsKind(err, todo.NotFound) {
		return &state{ID: stateID, Root: emptyRoot}, nil
	}
	if err != nil {
		return nil, err
	}
	if known != nil && known.etag != "" && known.etag == it.ETag {
		return known, nil
	}
	st := &state{ID: stateID, etag: it.ETag}
	return st, decode(it, stateID, st)
}

// emptyRoot is the RFC 6962 hash of the empty tree: SHA-256 of nothing.
var emptyRoot = tlog.Hash(sha256.Sum256(nil))

// tileReader reads tiles from the store for the sumdb hash readers, which
// take no context: it lives for one call. Tiles read are kept, since the
// readers ask for the same ones again.
type tileReader struct {
	ctx   context.Context
	c     store.Container
	cache map[tlog.Tile][]byte
}

func newTileReader(ctx context.Context, c store.Container) *tileReader {
	return &tileReader{ctx: ctx, c: c, cache: map[tlog.Tile][]byte{}}
}

func (r *tileReader) Height() int { return TileHeight }

func (r *tileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		if b, ok := r.cache[t]; ok {
			out[i] = b
			continue
		}
		b, err := r.read(t) // exactly t.W hashes, or an error
		if err != nil {
			return nil, err
		}
		r.cache[t] = b
		out[i] = b
	}
	return out, nil
}

func (r *tileReader) SaveTiles([]tlog.Tile, [][]byte) {}

// read reads the tile t: a partial tile's chain of documents, or, when
// the log no longer holds them, the start of its full tile.
func (r *tileReader) read(t tlog.Tile) ([]byte, error) {
	b, err := r.chain(t)
	if todo.IsKind(err, todo.NotFound) && t.W < tileWidth {
		full := t
		full.W = tileWidth
		whole, ferr := r.chain(full)
		if ferr != nil {
			return nil, err
		}
		return prefix(t, whole)
	}
	if err != nil {
		return nil, err
	}
	p, err := prefix(t, b)
	if err == nil && len(p) != len(b) {
		err = todo.Errorf(todo.Internal, "tile %s holds more than its width", TilePath(t))
	}
	return p, err
}

// chain reads the documents of t, from its own back to a whole one, and
// joins their data.
func (r *tileReader) chain(t tlog.Tile) ([]byte, error) {
	var parts [][]byte
	size := 0
	for w := t.W; ; {
		at := t
		at.W = w
		id := tileID(at)
		it, err := r.c.Read(r.ctx, store.PartitionKey{id}, id)
		if err != nil {
			return nil, err
		}
		d, err := decodeTileDoc(it.Body)
		if err != nil {
			return nil, todo.Wrap(todo.Internal, err, "log document "+id+" does not decode")
		}
		parts = append(parts, d.Data)
		size += len(d.Data)
		if d.From == 0 {
			break
		}
		if d.From < 0 || d.From >= w {
			return nil, todo.Errorf(todo.Internal, "log document %s continues a tile of width %d", tileID(at), d.From)
		}
		w = d.From
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	b := make([]byte, 0, size)
	for i := len(parts) - 1; i >= 0; i-- {
		b = append(b, parts[i]...)
	}
	return b, nil
}

// entries reads the entry bundle t: exactly t.W entries.
func (r *tileReader) entries(t tlog.Tile) ([][]byte, error) {
	b, err := r.read(t)
	if err != nil {
		return nil, err
	}
	entries, err := ParseBundle(b)
	if err == nil && len(entries) != t.W {
		err = todo.Errorf(todo.Internal, "entry bundle %s holds %d entries", TilePath(t), len(entries))
	}
	return entries, err
}

// bundleTile is the entry bundle n of the tree of size leaves, at the
// width it has in that tree.
func bundleTile(size, n int64) tlog.Tile {
	return tlog.Tile{H: TileHeight, L: -1, N: n, W: int(min(size-n*tileWidth, tileWidth))}
}

// prefix returns the first t.W hashes or entries of b, the data of a tile
// at least as wide; an error when b holds fewer.
func prefix(t tlog.Tile, b []byte) ([]byte, error) {
	if t.L >= 0 {
		if n := t.W * tlog.HashSize; len(b) >= n {
			return b[:n], nil
		}
		return nil, todo.Errorf(todo.Internal, "tile %s holds %d bytes, not %d", TilePath(t), len(b), t.W*tlog.HashSize)
	}
	n := 0
	for range t.W {
		if len(b)-n < 2 {
			return nil, todo.Errorf(todo.Internal, "entry bundle %s holds fewer than %d entries", TilePath(t), t.W)
		}
		if n += 2 + int(binary.BigEndian.Uint16(b[n:])); n > len(b) {
			return nil, todo.Errorf(todo.Internal, "entry bundle %s ends inside an entry", TilePath(t))
		}
	}
	return b[:n], nil
}

// hashes is a hash reader over the tree t, every tile it reads checked
// against t's root.
func (r *tileReader) hashes(t tlog.Tree) tlog.HashReader { return tlog.TileHashReader(t, r) }
