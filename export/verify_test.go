package export_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sumdb "golang.org/x/mod/sumdb/tlog"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/export"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/internal/historytest"
	"github.com/todoaudit/todo/transparency"
)

// memLog is a transparency log in memory: the leaves of the records added,
// their stored hashes, and a checkpoint of what was added before the last
// sign, served through export.Log and as tiles.
type memLog struct {
	keys    *transparency.Keys
	hashes  []sumdb.Hash
	size    int64
	index   map[transparency.VersionRef]int64
	note    []byte
	signed  transparency.Checkpoint
	tampers map[sumdb.Tile]bool // tiles served with one byte changed
}

func newMemLog(t testing.TB) *memLog {
	k, err := transparency.LoadOrCreateKeys(filepath.Join(t.TempDir(), "log.key"), "todo.test/log")
	if err != nil {
		t.Fatal(err)
	}
	return &memLog{keys: k, index: map[transparency.VersionRef]int64{}, tampers: map[sumdb.Tile]bool{}}
}

func (l *memLog) add(t testing.TB, recs ...todo.AuditRecord) {
	for i := range recs {
		leaf, err := transparency.LeafOf(&recs[i])
		if err != nil {
			t.Fatal(err)
		}
		hs, err := sumdb.StoredHashes(l.size, leaf.Encode(), l)
		if err != nil {
			t.Fatal(err)
		}
		l.hashes = append(l.hashes, hs...)
		l.index[transparency.VersionRef{EntityKey: recs[i].EntityKey, Version: recs[i].Version}] = l.size
		l.size++
	}
}

// sign publishes a checkpoint of every leaf added.
func (l *memLog) sign(t testing.TB) {
	root, err := sumdb.TreeHash(l.size, l)
	if err != nil {
		t.Fatal(err)
	}
	l.signed = transparency.Checkpoint{Origin: l.keys.Signer.Name(), Size: l.size, Root: root}
	if l.note, err = l.signed.Sign(l.keys.Signer); err != nil {
		t.Fatal(err)
	}
}

func (l *memLog) ReadHashes(idx []int64) ([]sumdb.Hash, error) {
	out := make([]sumdb.Hash, len(idx))
	for i, x := range idx {
		if x >= int64(len(l.hashes)) {
			return nil, fmt.Errorf("no hash %d", x)
		}
		out[i] = l.hashes[x]
	}
	return out, nil
}

func (l *memLog) Checkpoint(context.Context) ([]byte, transparency.Checkpoint, error) {
	if l.note == nil {
		return nil, transparency.Checkpoint{}, todo.Errorf(todo.NotFound, "no checkpoint")
	}
	return l.note, l.signed, nil
}

func (l *memLog) Locate(_ context.Context, refs []transparency.VersionRef) ([]int64, error) {
	out := make([]int64, len(refs))
	for i, r := range refs {
		x, ok := l.index[r]
		if !ok {
			x = -1
		}
		out[i] = x
	}
	return out, nil
}

func (l *memLog) Height() int { return transparency.TileHeight }

func (l *memLog) ReadTiles(tiles []sumdb.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		b, err := sumdb.ReadTileData(t, l)
		if err != nil {
			return nil, err
		}
		if l.tampers[t] {
			b[0] ^= 1
		}
		out[i] = b
	}
	return out, nil
}

func (l *memLog) SaveTiles([]sumdb.Tile, [][]byte) {}

// history returns the audit records of n versions of one todo of alice,
// the title of version v being "<name> <v>".
func history(t testing.TB, name string, n int) []todo.AuditRecord {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	return historytest.Versions(t, todo.Todo{ID: "Work:" + name, Type: todo.TypeTodo, UserID: "alice", CreatedAt: at,
		Fields: todo.Fields{Category: "Work", Title: name, Notes: "notes, \"quoted\"\nover two lines", Tags: []string{"x"}}}, n)
}

// exportOf writes recs as an export, flushing every page records.
func exportOf(t testing.TB, format string, log export.Log, recs []todo.AuditRecord, page int) []byte {
	t.Helper()
	return exportWith(t, format, map[string]string{"actor": "alice"}, log, recs, page)
}

// exportWith is exportOf with the filters the manifest names.
func exportWith(t testing.TB, format string, filters map[string]string, log export.Log, recs []todo.AuditRecord, page int) []byte {
	t.Helper()
	var out bytes.Buffer
	w := export.New(&out, format, filters, log)
	ctx := context.Background()
	for i, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
		if (i+1)%page == 0 {
			if err := w.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// activity is three todos' histories of five versions, newest first, as
// an activity export orders them.
func activity(t *testing.T) []todo.AuditRecord {
	var all []todo.AuditRecord
	hs := [][]todo.AuditRecord{history(t, "a", 5), history(t, "b", 5), history(t, "c", 5)}
	for v := 4; v >= 0; v-- {
		for _, h := range hs {
			all = append(all, h[v])
		}
	}
	return all
}

// An export of a few todos with many versions verifies, in both formats,
// oldest first or newest first, and with a field erased from one version.
func TestVerifyAccepts(t *testing.T) {
	l := newMemLog(t)
	recs := activity(t)
	l.add(t, recs...)
	l.add(t, history(t, "other", 3)...) // leaves of versions not exported
	l.sign(t)
	erased := append([]todo.AuditRecord(nil), recs...)
	if recs[3].Seed == "" {
		t.Fatal("the records are not stored with seeds")
	}
	// Erasing gives the copy commitments of its own, from its seed; an
	// erasure erases every personal value of every version of a todo.
	for i := range erased {
		if erased[i].EntityID == "Work:b" {
			if _, err := hashchain.ErasePersonalRecord(&erased[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, format := range []string{export.NDJSON, export.CSV, "NDJSON of the first form"} {
		for name, rs := range map[string][]todo.AuditRecord{"newest first": recs, "oldest first": reversed(recs), "erased": erased} {
			var b []byte
			if format == "NDJSON of the first form" {
				b = exportForm(t, export.FormCommitments, l, rs)
			} else {
				b = exportOf(t, format, l, rs, 4)
			}
			rep, err := export.Verify(bytes.NewReader(b), l.keys.Verifier, l)
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", format, name, err, b)
			}
			if rep.Manifest.Count != 15 || rep.Links != 12 || rep.Checkpoint.Size != 18 || rep.Manifest.Pending != 0 {
				t.Fatalf("%s %s: %+v", format, name, rep)
			}
			// The newest NDJSON form shows seeds, and salts only of the
			// versions erased.
			seeds := format == export.NDJSON
			if format != export.CSV && (seeds != bytes.Contains(b, []byte(`"seed":"`)) || (seeds && name != "erased") == bytes.Contains(b, []byte(`"salt":"`))) {
				t.Fatalf("%s %s: seeds shown: %v, want %v", format, name, !seeds, seeds)
			}
			if want := map[bool]int{true: 15, false: 0}[name == "erased"]; rep.ErasedFields != want {
				t.Fatalf("%s %s: %d fields erased, want %d", format, name, rep.ErasedFields, want)
			}
		}
	}
}

func reversed(recs []todo.AuditRecord) []todo.AuditRecord {
	out := make([]todo.AuditRecord, len(recs))
	for i, r := range recs {
		out[len(recs)-1-i] = r
	}
	return out
}

// lines splits an export into its lines, each with its newline; a CSV
// record holding newlines in quotes is one line here only if it has none,
// so the tampering below edits NDJSON by line and CSV by bytes.
func lines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}

// rehash recomputes the manifest's digest over the NDJSON lines before it,
// as someone editing the file would, so that a check other than the digest
// must catch the edit.
func rehash(t *testing.T, ls [][]byte) []byte {
	body := bytes.Join(ls[:len(ls)-1], nil)
	var tail map[string]map[string]any
	if err := json.Unmarshal(ls[len(ls)-1], &tail); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	tail["manifest"]["sha256"] = hex.EncodeToString(sum[:])
	m, _ := json.Marshal(tail)
	return append(append(body, m...), '\n')
}

func editManifest(t *testing.T, ls [][]byte, f func(m map[string]any)) [][]byte {
	var tail map[string]map[string]any
	if err := json.Unmarshal(ls[len(ls)-1], &tail); err != nil {
		t.Fatal(err)
	}
	f(tail["manifest"])
	m, _ := json.Marshal(tail)
	return append(ls[:len(ls)-1:len(ls)-1], append(m, '\n'))
}

// Changing one line of an export, in any way, is refused with the reason,
// in either form of NDJSON export.
func TestVerifyRefuses(t *testing.T) {
	for _, form := range []int{export.FormCommitments, export.FormSeeds} {
		t.Run(fmt.Sprint("form ", form), func(t *testing.T) { verifyRefuses(t, form) })
	}
}

// exportForm writes recs as an NDJSON export of the given form.
func exportForm(t *testing.T, form int, log export.Log, recs []todo.AuditRecord) []byte {
	t.Helper()
	var out bytes.Buffer
	w := export.NewForm(&out, export.NDJSON, form, map[string]string{"actor": "alice"}, log)
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// otherHexDigitAfter changes the hex digit after the first at in b to
// another.
func otherHexDigitAfter(b []byte, at string) []byte {
	out := append([]byte(nil), b...)
	i := bytes.Index(out, []byte(at)) + len(at)
	out[i] = map[bool]byte{true: 'b', false: 'a'}[out[i] == 'a']
	return out
}

func verifyRefuses(t *testing.T, form int) {
	l := newMemLog(t)
	recs := activity(t)
	l.add(t, recs...)
	l.sign(t)
	good := exportForm(t, form, l, recs)
	// A value edited in a record of the first form fails its commitment;
	// in a record shown with its seed, the digests derived from it fail
	// the hash.
	editedValue := map[int]string{export.FormCommitments: "does not match its commitment", export.FormSeeds: "does not match its hash"}[form]
	goodCSV := exportOf(t, export.CSV, l, recs, 100)
	other := newMemLog(t)
	other.add(t, recs...)
	other.sign(t)
	swap := func(ls [][]byte, i, j int) [][]byte {
		ls = append([][]byte(nil), ls...)
		ls[i], ls[j] = ls[j], ls[i]
		return ls
	}
	cases := []struct {
		name, want string
		export     func() []byte
		tiles      sumdb.TileReader
	}{
		{"one byte of a title", editedValue, func() []byte {
			return bytes.Replace(good, []byte("b 3"), []byte("b 4"), 1)
		}, l},
		{"the manifest's form removed, or named 1", map[int]string{export.FormCommitments: "none this verifier knows", export.FormSeeds: "names no form"}[form], func() []byte {
			return bytes.Join(editManifest(t, lines(good), func(m map[string]any) {
				if form == export.FormSeeds {
					delete(m, "form")
				} else {
					m["form"] = export.FormCommitments
				}
			}), nil)
		}, l},
		{"a form no verifier knows", "none this verifier knows", func() []byte {
			return bytes.Join(editManifest(t, lines(good), func(m map[string]any) { m["form"] = 3 }), nil)
		}, l},
		{"a seed altered, or a salt", editedValue, func() []byte {
			if form == export.FormSeeds {
				return otherHexDigitAfter(good, `"seed":"`)
			}
			return otherHexDigitAfter(good, `"salt":"`)
		}, l},
		{"a seed beside the commitments", "both a seed and commitments", func() []byte {
			if form == export.FormSeeds {
				return bytes.Replace(good, []byte(`"seed":"`), []byte(`"commitments":{},"seed":"`), 1)
			}
			return bytes.Replace(good, []byte(`"commitments":{`), []byte(`"seed":"00000000000000000000000000000000","commitments":{`), 1)
		}, l},
		{"two lines reordered", "sha256", func() []byte { return bytes.Join(swap(lines(good), 1, 2), nil) }, l},
		{"a version of another history of the todo", "prevHash of version 4", func() []byte {
			forged := append([]todo.AuditRecord(nil), recs...)
			forged[6] = history(t, "a", 5)[2] // a v3 of other salts: its own hash verifies
			return exportOf(t, export.NDJSON, l, forged, 100)
		}, l},
		{"a line dropped", "sha256", func() []byte {
			ls := lines(good)
			return bytes.Join(append(ls[:4:4], ls[5:]...), nil)
		}, l},
		{"a CSV row dropped", "sha256", func() []byte {
			i := bytes.Index(goodCSV, []byte("\nWork:b:v4,"))
			j := bytes.Index(goodCSV, []byte("\nWork:c:v4,"))
			return append(append([]byte(nil), goodCSV[:i]...), goodCSV[j:]...)
		}, l},
		{"the count changed", "counts 16 records", func() []byte {
			return bytes.Join(editManifest(t, lines(good), func(m map[string]any) { m["count"] = 16 }), nil)
		}, l},
		{"the CSV count changed", "counts 16 records", func() []byte {
			return bytes.Replace(goodCSV, []byte(`""count"":15`), []byte(`""count"":16`), 1)
		}, l},
		{"the last record changed", "last record", func() []byte {
			return bytes.Join(editManifest(t, lines(good), func(m map[string]any) { m["last"].(map[string]any)["version"] = 2 }), nil)
		}, l},
		{"a leaf index changed", "another version's", func() []byte {
			return rehash(t, lines(bytes.Replace(good, []byte(`"logIndex":3}`), []byte(`"logIndex":4}`), 1)))
		}, l},
		{"the checkpoint of another key", "not signed by the key", func() []byte {
			return bytes.Join(editManifest(t, lines(good), func(m map[string]any) { m["logCheckpoint"] = string(other.note) }), nil)
		}, l},
		{"a tampered tile", "tiles do not give", func() []byte { return good }, &memLog{hashes: l.hashes, tampers: map[sumdb.Tile]bool{{H: 8, L: 0, N: 0, W: 15}: true}}},
		{"no tiles", "give the log's tiles", func() []byte { return good }, nil},
		{"the manifest cut off", "without its manifest", func() []byte {
			ls := lines(good)
			return bytes.Join(ls[:len(ls)-1], nil)
		}, l},
		{"a line after the manifest", "not the last line", func() []byte { return append(append([]byte(nil), good...), lines(good)[0]...) }, l},
		{"a value shown erased, another kept", "keeps another personal value", func() []byte {
			forged := append([]todo.AuditRecord(nil), recs...)
			if err := hashchain.EraseRecord(&forged[3], "title"); err != nil {
				t.Fatal(err)
			}
			return exportOf(t, export.NDJSON, l, forged, 100)
		}, l},
		{"a field that is not personal shown erased", "not a personal field", func() []byte {
			forged := append([]todo.AuditRecord(nil), recs...)
			if _, err := hashchain.ErasePersonalRecord(&forged[3]); err != nil {
				t.Fatal(err)
			}
			if err := hashchain.EraseRecord(&forged[3], "dueDate"); err != nil {
				t.Fatal(err)
			}
			return exportOf(t, export.NDJSON, l, forged, 100)
		}, l},
		{"one version shown erased, the one before kept", "erases every version before it", func() []byte {
			forged := append([]todo.AuditRecord(nil), recs...)
			if _, err := hashchain.ErasePersonalRecord(&forged[3]); err != nil {
				t.Fatal(err)
			}
			return exportOf(t, export.NDJSON, l, forged, 100)
		}, l},
		{"the filters edited", "not the manifest's filter actor", func() []byte {
			return bytes.Join(editManifest(t, lines(good), func(m map[string]any) { m["filters"] = map[string]any{"actor": "bob"} }), nil)
		}, l},
		{"a filter unknown", "cannot be checked", func() []byte {
			return bytes.Join(editManifest(t, lines(good), func(m map[string]any) { m["filters"] = map[string]any{"colour": "red"} }), nil)
		}, l},
		{"another user's record in a one-todo export", "not the manifest's filter id", func() []byte {
			var forged []todo.AuditRecord
			for _, r := range recs {
				if r.EntityID == "Work:a" {
					forged = append(forged, r)
				}
			}
			bobs := historytest.Versions(t, todo.Todo{ID: "Work:bobs", Type: todo.TypeTodo, UserID: "bob", CreatedAt: forged[0].DateCreatedUTC,
				Fields: todo.Fields{Category: "Work", Title: "bob's"}}, 1)
			return exportWith(t, export.NDJSON, map[string]string{"id": "Work:a"}, l, append(forged, bobs...), 100)
		}, l},
		{"an unknown member", "unknown member", func() []byte {
			return rehash(t, lines(bytes.Replace(good, []byte(`{"id":`), []byte(`{"extra":1,"id":`), 1)))
		}, l},
	}
	for _, c := range cases {
		_, err := export.Verify(bytes.NewReader(c.export()), l.keys.Verifier, c.tiles)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
	if _, err := export.Verify(bytes.NewReader(good), l.keys.Verifier, l); err != nil {
		t.Fatalf("the export itself: %v", err)
	}
}

// Records the log has not integrated yet are exported without a logIndex,
// counted as pending, and the export does not verify until they are in;
// without a log there is no checkpoint to verify against.
func TestVerifyPending(t *testing.T) {
	l := newMemLog(t)
	recs := activity(t)
	l.add(t, recs[:10]...)
	l.sign(t)
	l.add(t, recs[10:12]...) // indexed but not in the signed tree
	b := exportOf(t, export.NDJSON, l, recs, 100)
	rep, err := export.Verify(bytes.NewReader(b), l.keys.Verifier, l)
	if err == nil || !strings.Contains(err.Error(), "5 of the 15 records have no logIndex") || rep.Manifest.Pending != 5 {
		t.Fatalf("pending export: %+v, %v", rep.Manifest, err)
	}
	_, err = export.Verify(bytes.NewReader(exportOf(t, export.CSV, nil, recs, 100)), l.keys.Verifier, l)
	if err == nil || !strings.Contains(err.Error(), "no log checkpoint") {
		t.Fatalf("export without a log: %v", err)
	}
}

// Whatever the bytes, Verify answers without panicking, and what it
// accepts is made of the log's records: at most the three it holds, under
// its only checkpoint.
func FuzzVerify(f *testing.F) {
	l := newMemLog(f)
	recs := history(f, "a", 3)
	l.add(f, recs...)
	l.sign(f)
	f.Add(exportOf(f, export.NDJSON, l, recs, 2))
	f.Add(exportOf(f, export.CSV, l, recs, 2))
	f.Add([]byte("{\"manifest\":{}}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rep, err := export.Verify(bytes.NewReader(b), l.keys.Verifier, l)
		if err == nil && (rep.Manifest.Count > len(recs) || rep.Checkpoint != l.signed) {
			t.Fatalf("accepted %+v", rep)
		}
	})
}
