package export

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
	sumdb "golang.org/x/mod/sumdb/tlog"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/internal/jsondoc"
	"github.com/todoaudit/todo/transparency"
)

// Report is what Verify checked.
type Report struct {
	Manifest Manifest
	// Links counts the pairs of consecutive versions of one todo, both in
	// the export, whose prevHash link was checked.
	Links int
	// Checkpoint is the manifest's, its signature verified.
	Checkpoint transparency.Checkpoint
	// ErasedFields counts the fields shown erased, in ErasedRecords
	// records: each verified by its digest alone.
	ErasedFields, ErasedRecords int
	// Erasures counts the entries of erasures (an activity or admin
	// export shows them): no chain or log covers them, and each was
	// checked against its own hash.
	Erasures int
}

// maxLine bounds one line (one record) of an export.
const maxLine = 16 << 20

// manifestPrefix starts an NDJSON export's last line, and csvManifest the
// first column of a CSV export's last row.
const (
	manifestPrefix = `{"manifest":`
	csvManifest    = "#manifest"
)

// Verify reads an export from r and checks, offline, with the log's
// verifier key and its tiles (read through tiles, every one checked
// against the checkpoint's root): the manifest is the last line and its
// SHA-256, count, first and last record and pending count are those of the
// lines before it; each record's hash is recomputed from its content (each
// field by its commitment, so erased fields verify by digest); any two
// consecutive versions of one todo in it link by prevHash, in whatever
// order it lists them (versions written in the same millisecond may come
// in either order in an activity export); the checkpoint is signed by the
// key; and every record's leaf, derived from the record, is in the
// checkpoint's tree at its logIndex. A record without a logIndex (not in
// the log yet), a manifest without a checkpoint, or no tiles to check
// inclusion with, fails too: an export verifies only when all of it does.
// Memory grows by about 200 bytes a record and a hundred a todo.
func Verify(r io.Reader, v note.Verifier, tiles sumdb.TileReader) (Report, error) {
	var rep Report
	br := bufio.NewReaderSize(r, 64<<10)
	first, err := br.Peek(1)
	if err != nil {
		return rep, fmt.Errorf("the export is empty: %w", err)
	}
	c := &checker{sum: sha256.New(), versions: map[string]map[int64]link{}, erasedUpTo: map[string]int64{}, keptFrom: map[string]int64{}}
	var m Manifest
	if first[0] == '{' {
		m, err = c.ndjson(br)
	} else {
		m, err = c.csv(br)
	}
	if err != nil {
		return rep, err
	}
	if err := c.form(&m); err != nil {
		return rep, err
	}
	rep.Manifest, rep.Links, rep.Erasures = m, c.links, c.erasures
	rep.ErasedFields, rep.ErasedRecords = c.erasedFields, c.erasedRecords
	if err := c.manifest(&m); err != nil {
		return rep, err
	}
	if err := c.seen.check(m.Filters); err != nil {
		return rep, err
	}
	for key, upTo := range c.erasedUpTo {
		if from, ok := c.keptFrom[key]; ok && from < upTo {
			return rep, fmt.Errorf("version %d of %s keeps its personal values, though version %d after it is shown erased: an erasure erases every version before it", from, key, upTo)
		}
	}
	if m.LogCheckpoint == nil {
		return rep, fmt.Errorf("the manifest names no log checkpoint (the handler keeps no log, or had signed no checkpoint yet): the %d records cannot be checked against the log", c.count)
	}
	if rep.Checkpoint, err = transparency.OpenCheckpoint([]byte(*m.LogCheckpoint), v); err != nil {
		return rep, fmt.Errorf("the manifest's checkpoint: %w", err)
	}
	if c.pending > 0 {
		return rep, fmt.Errorf("%d of the %d records have no logIndex: they were not in the log yet; export again once it has integrated them", c.pending, c.count)
	}
	if tiles == nil {
		return rep, fmt.Errorf("the inclusion of the %d records was not checked: give the log's tiles", c.count)
	}
	if err := transparency.VerifyLeaves(rep.Checkpoint, tiles, c.leaves); err != nil {
		return rep, fmt.Errorf("a record is not in the log under the manifest's checkpoint: %w", err)
	}
	return rep, nil
}

// link is what a version of a todo says of the chain: its hash and the one
// before it.
type link struct{ hash, prevHash string }

// checker checks records as they are read and keeps what the manifest is
// compared with.
type checker struct {
	sum         hash.Hash
	count       int
	pending     int // records of versions without a logIndex
	erasures    int
	links       int
	first, last *Ref
	leaves      []transparency.LeafAt
	versions    map[string]map[int64]link // by entity key, then version
	seen        seen
	// erasedFields counts the fields shown erased, erasedRecords the
	// records with any; erasedUpTo and keptFrom are, by entity key, the
	// newest version shown erased and the oldest with a personal value
	// kept.
	erasedFields, erasedRecords int
	erasedUpTo, keptFrom        map[string]int64
	// seeded is the line of the first record shown with its seed, 0 if
	// none is.
	seeded int
}

// ndjson reads NDJSON lines: records, then the manifest.
func (c *checker) ndjson(br *bufio.Reader) (Manifest, error) {
	for n := 1; ; n++ {
		line, err := readLine(br)
		if errors.Is(err, io.EOF) {
			return Manifest{}, errors.New("the export ends without its manifest: it is incomplete")
		}
		if err != nil {
			return Manifest{}, fmt.Errorf("line %d: %w", n, err)
		}
		if bytes.HasPrefix(line, []byte(manifestPrefix)) {
			var tail struct {
				Manifest Manifest `json:"manifest"`
			}
			if err := jsondoc.UnmarshalStrict(line, &tail); err != nil {
				return Manifest{}, fmt.Errorf("line %d: the manifest does not decode: %w", n, err)
			}
			if _, err := readLine(br); !errors.Is(err, io.EOF) {
				return Manifest{}, fmt.Errorf("line %d: the manifest is not the last line", n)
			}
			if tail.Manifest.Format != NDJSON {
				return Manifest{}, fmt.Errorf("the manifest says the export is %s, not NDJSON", tail.Manifest.Format)
			}
			return tail.Manifest, nil
		}
		var l Line
		if err := jsondoc.UnmarshalStrict(line, &l); err != nil {
			if perr := transparency.ProblemAnswer(line); perr != nil && n == 1 {
				return Manifest{}, perr
			}
			return Manifest{}, fmt.Errorf("line %d is not an audit record: %w", n, err)
		}
		if l.Seed != "" && c.seeded == 0 {
			c.seeded = n
		}
		if err := c.record(&l.AuditRecord, l.LogIndex); err != nil {
			return Manifest{}, fmt.Errorf("line %d: %w", n, err)
		}
		c.sum.Write(line)
	}
}

// readLine reads one line with its newline (the last may have none), at
// most maxLine bytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		line = append(line, frag...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("longer than %d bytes", maxLine)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) && len(line) > 0 {
			return line, nil
		}
		return line, err
	}
}

// tap keeps the bytes a CSV reader reads, until they are hashed: the
// digest covers the rows' bytes exactly as sent.
type tap struct {
	r    io.Reader
	kept []byte
	done int64 // the input offset of kept[0]
}

func (t *tap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.kept = append(t.kept, p[:n]...)
	return n, err
}

// hashTo hashes the input up to offset.
func (t *tap) hashTo(h hash.Hash, offset int64) {
	n := int(offset - t.done)
	h.Write(t.kept[:n])
	t.kept = t.kept[:copy(t.kept, t.kept[n:])]
	t.done = offset
}

// csv reads CSV rows: the header, records, then the manifest row.
func (c *checker) csv(br *bufio.Reader) (Manifest, error) {
	t := &tap{r: br}
	cr := csv.NewReader(t)
	cr.FieldsPerRecord = len(CSVHeader)
	cr.ReuseRecord = true
	for n := 1; ; n++ {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return Manifest{}, errors.New("the export ends without its manifest: it is incomplete")
		}
		if err != nil {
			return Manifest{}, fmt.Errorf("row %d: %w", n, err)
		}
		switch {
		case n == 1:
			for i, name := range CSVHeader {
				if row[i] != name {
					return Manifest{}, fmt.Errorf("row 1 is not the header of an export: column %d is %q, not %q", i+1, row[i], name)
				}
			}
		case row[0] == csvManifest:
			var m Manifest
			if err := jsondoc.UnmarshalStrict([]byte(row[1]), &m); err != nil {
				return Manifest{}, fmt.Errorf("row %d: the manifest does not decode: %w", n, err)
			}
			for _, rest := range row[2:] {
				if rest != "" {
					return Manifest{}, fmt.Errorf("row %d: the manifest row has more than two columns", n)
				}
			}
			if _, err := cr.Read(); !errors.Is(err, io.EOF) {
				return Manifest{}, fmt.Errorf("row %d: the manifest is not the last row", n)
			}
			if m.Format != CSV {
				return Manifest{}, fmt.Errorf("the manifest says the export is %s, not CSV", m.Format)
			}
			return m, nil
		default:
			r, logIndex, err := recordOfRow(row)
			if err == nil {
				err = c.record(&r, logIndex)
			}
			if err != nil {
				return Manifest{}, fmt.Errorf("row %d: %w", n, err)
			}
		}
		t.hashTo(c.sum, cr.InputOffset())
	}
}

// recordOfRow is the audit record of a CSV row (in CSVHeader's columns)
// and its leaf's index.
func recordOfRow(row []string) (todo.AuditRecord, *int64, error) {
	r := todo.AuditRecord{ID: row[0], EntityKey: row[1], EntityID: row[2], EntityType: row[3], Operation: todo.Operation(row[5]),
		Actor: row[7], PrevHash: row[8], Hash: row[9], Entity: []byte(row[10])}
	var err error
	if r.Version, err = strconv.ParseInt(row[4], 10, 64); err != nil {
		return r, nil, fmt.Errorf("version %q is not a number", row[4])
	}
	if r.DateCreatedUTC, err = time.Parse(time.RFC3339Nano, row[6]); err != nil {
		return r, nil, fmt.Errorf("dateCreatedUtc %q is not an RFC 3339 time", row[6])
	}
	if row[11] != "" {
		if r.Chain, err = strconv.Atoi(row[11]); err != nil {
			return r, nil, fmt.Errorf("chain %q is not a number", row[11])
		}
	}
	if row[12] != "" {
		if err := jsondoc.UnmarshalStrict([]byte(row[12]), &r.Commitments); err != nil {
			return r, nil, fmt.Errorf("commitments do not decode: %w", err)
		}
	}
	if row[13] == "" {
		return r, nil, nil
	}
	n, err := strconv.ParseInt(row[13], 10, 64)
	if err != nil || n < 0 {
		return r, nil, fmt.Errorf("logIndex %q is not a leaf index", row[13])
	}
	return r, &n, nil
}

// record checks one record: its id, its hash, its link with the version of
// the same todo read before it, and keeps its leaf.
func (c *checker) record(r *todo.AuditRecord, logIndex *int64) error {
	if r.EntityType == todo.EntityTypeErasure {
		return c.erasure(r, logIndex)
	}
	name := fmt.Sprintf("version %d of %s", r.Version, r.EntityKey)
	if r.ID != todo.AuditID(r.EntityID, r.Version) {
		return fmt.Errorf("%s has id %q, not the id of that version", name, r.ID)
	}
	a, err := hashchain.Verified(r)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := c.erased(r, &a); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	c.seen.add(r, ownerOf(r), a.Entity.Category)
	vs := c.versions[r.EntityKey]
	if vs == nil {
		vs = map[int64]link{}
		c.versions[r.EntityKey] = vs
	}
	if _, ok := vs[r.Version]; ok {
		return fmt.Errorf("%s is exported twice", name)
	}
	if before, ok := vs[r.Version-1]; ok {
		if r.PrevHash != before.hash {
			return fmt.Errorf("the prevHash of %s is not the hash of version %d", name, r.Version-1)
		}
		c.links++
	}
	if after, ok := vs[r.Version+1]; ok {
		if after.prevHash != r.Hash {
			return fmt.Errorf("the prevHash of version %d of %s is not the hash of version %d", r.Version+1, r.EntityKey, r.Version)
		}
		c.links++
	}
	vs[r.Version] = link{hash: r.Hash, prevHash: r.PrevHash}
	leaf, err := transparency.LeafOf(r)
	if err != nil {
		return fmt.Errorf("%s has no leaf: %w", name, err)
	}
	if logIndex == nil {
		c.pending++
	} else {
		c.leaves = append(c.leaves, transparency.LeafAt{Index: *logIndex, Leaf: leaf})
	}
	c.counted(r)
	return nil
}

// erased checks what a record shows erased against what an erasure does
// (todo.ErasePersonal): it erases personal fields only, every one that
// holds a value, and every version before it. A record rewritten to hide
// one value, or a field that is not personal, behind "erased" fails.
func (c *checker) erased(r *todo.AuditRecord, a *hashchain.Audited) error {
	names := a.Commitments.ErasedNames()
	kept := todo.PersonalValues(&a.Entity)
	switch {
	case len(names) == 0:
		// The first chain encoding commits to no field separately: an
		// erasure leaves those versions as they are.
		if kept && a.Chain >= hashchain.V2 {
			if v, ok := c.keptFrom[r.EntityKey]; !ok || r.Version < v {
				c.keptFrom[r.EntityKey] = r.Version
			}
		}
		return nil
	case kept:
		return fmt.Errorf("it shows %s erased, and keeps another personal value: an erasure erases them all", strings.Join(names, ", "))
	}
	for _, n := range names {
		if !slices.Contains(todo.PersonalFields, n) {
			return fmt.Errorf("it shows %s erased, which is not a personal field: no erasure erases it", n)
		}
	}
	c.erasedFields += len(names)
	c.erasedRecords++
	c.erasedUpTo[r.EntityKey] = max(c.erasedUpTo[r.EntityKey], r.Version)
	return nil
}

// erasure checks the entry of an erasure: shown with the erasure's id in
// the governance partition, its hash the SHA-256 of its entity (the run's
// status), and never in the log.
func (c *checker) erasure(r *todo.AuditRecord, logIndex *int64) error {
	sum := sha256.Sum256(r.Entity)
	switch {
	case r.ID != r.EntityID || r.EntityKey != todo.GovernanceKey || r.Operation != todo.OpErase:
		return fmt.Errorf("the erasure entry %q is not shown as an erasure's (id, entityKey and operation)", r.ID)
	case r.Hash != hex.EncodeToString(sum[:]):
		return fmt.Errorf("the erasure entry %q is not what its hash covers", r.ID)
	case logIndex != nil:
		return fmt.Errorf("the erasure entry %q has a logIndex, though the log holds versions only", r.ID)
	}
	c.erasures++
	c.seen.add(r, erasedUser(r.Entity), "")
	c.counted(r)
	return nil
}

// counted counts a record checked, first or last.
func (c *checker) counted(r *todo.AuditRecord) {
	ref := refOf(r)
	if c.first == nil {
		c.first = ref
	}
	c.last, c.count = ref, c.count+1
}

// form checks that the records are shown as the manifest's form shows
// them: a seed in FormSeeds only, which is NDJSON's; a manifest without a
// form is of FormCommitments.
func (c *checker) form(m *Manifest) error {
	switch m.Form {
	case 0:
		if c.seeded > 0 {
			return fmt.Errorf("line %d shows a record's seed, and the manifest names no form: in the first form every record shows its commitments", c.seeded)
		}
	case FormSeeds:
		if m.Format != NDJSON {
			return fmt.Errorf("the manifest names form %d, which only NDJSON exports have", m.Form)
		}
	default:
		return fmt.Errorf("the manifest names form %d, which is none this verifier knows (a manifest names none, or %d)", m.Form, FormSeeds)
	}
	return nil
}

// manifest compares the manifest with what was read.
func (c *checker) manifest(m *Manifest) error {
	if sum := hex.EncodeToString(c.sum.Sum(nil)); m.SHA256 != sum {
		return fmt.Errorf("the manifest's sha256 is %s, the bytes before it hash to %s", m.SHA256, sum)
	}
	switch {
	case m.Count != c.count:
		return fmt.Errorf("the manifest counts %d records, the export holds %d", m.Count, c.count)
	case !sameRef(m.First, c.first):
		return errors.New("the manifest's first record is not the export's")
	case !sameRef(m.Last, c.last):
		return errors.New("the manifest's last record is not the export's")
	case m.Pending != c.pending+c.erasures:
		return fmt.Errorf("the manifest counts %d records without a logIndex, the export holds %d", m.Pending, c.pending+c.erasures)
	}
	return nil
}

func sameRef(a, b *Ref) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.ID == b.ID && a.EntityKey == b.EntityKey && a.Version == b.Version && a.DateCreatedUTC.Equal(b.DateCreatedUTC) && a.Hash == b.Hash
}
