// Package export writes audit records as a file an outsider can check: one
// record per line, NDJSON or CSV, as they are read page by page (memory
// stays that of one page whatever the size), each with the index of its
// leaf in the transparency log, then a manifest with the filters, the
// count, the first and last record, the SHA-256 of every byte written
// before it and the signed checkpoint whose tree holds every leaf named.
// Verify checks such a file offline.
package export

import (
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"strconv"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/transparency"
)

// The formats, by their media types.
const (
	NDJSON = "application/x-ndjson"
	CSV    = "text/csv"
)

// Ref names one exported record.
type Ref struct {
	ID             string    `json:"id"`
	EntityKey      string    `json:"entityKey"`
	Version        int64     `json:"version"`
	DateCreatedUTC time.Time `json:"dateCreatedUtc"`
	Hash           string    `json:"hash"`
}

// Manifest describes an export. LogCheckpoint is the signed checkpoint
// (the note text) of a tree that holds the leaf of every record exported
// with a logIndex; null when the handler keeps no log, or the log has no
// checkpoint yet. Pending counts the records exported without one:
// versions not in that tree yet, since the log integrates them a few
// seconds after they are written, and the entries of erasures, which no
// leaf is of.
type Manifest struct {
	Format string `json:"format"`
	// Form is the form of the records' lines: FormSeeds, or 0 (no member)
	// for FormCommitments, the first, which manifests before it did not
	// name.
	Form          int               `json:"form,omitempty"`
	Filters       map[string]string `json:"filters"`
	Count         int               `json:"count"`
	First         *Ref              `json:"first"`
	Last          *Ref              `json:"last"`
	SHA256        string            `json:"sha256"`
	LogCheckpoint *string           `json:"logCheckpoint"`
	Pending       int               `json:"pending"`
}

// The forms of an export's records. A written form is frozen: a reader
// tells them apart by the manifest's form.
const (
	// FormCommitments shows every record with its commitments: a salt and
	// a digest for each of its fields, in the encodings that commit to
	// each field. CSV exports are of this form.
	FormCommitments = 1
	// FormSeeds shows a record stored with its seed with the seed in place
	// of its commitments, which a verifier derives from the seed and the
	// entity (as docs/chain.md says); a record with a field erased keeps
	// its commitments, the erased field's digest alone. NDJSON only.
	FormSeeds = 2
)

// Log is the transparency log an export places its records in (a
// *transparency.Log): its latest checkpoint, and where versions' leaves are.
type Log interface {
	Checkpoint(ctx context.Context) ([]byte, transparency.Checkpoint, error)
	Locate(ctx context.Context, refs []transparency.VersionRef) ([]int64, error)
}

// Writer writes records in one format and then the manifest.
type Writer struct {
	out    io.Writer
	sum    hash.Hash
	body   io.Writer // out and sum
	line   []byte    // the buffer of each NDJSON line in turn
	csv    *csv.Writer
	m      Manifest
	failed error

	log  Log
	page []todo.AuditRecord // written, not yet flushed
	// checkpoint is the latest checkpoint read, size its tree size: the
	// records are placed in its tree.
	checkpoint []byte
	size       int64
}

// Line is an NDJSON export's line of one record: the audit record's own
// members and, once the log holds its leaf, the leaf's index.
type Line struct {
	todo.AuditRecord
	LogIndex *int64 `json:"logIndex,omitempty"`
}

// AppendJSON appends l as json.Marshal encodes it: the record's
// properties (by its own AppendJSON), then the index. Without it the
// record's AppendJSON, promoted, would leave the index out.
func (l Line) AppendJSON(b []byte) ([]byte, error) {
	if l.LogIndex == nil {
		return l.AuditRecord.AppendJSON(b)
	}
	return l.AuditRecord.AppendJSONAnd(b, strconv.AppendInt([]byte(`,"logIndex":`), *l.LogIndex, 10))
}

// CSVHeader is the CSV export's first line: the columns of the record
// (chain and commitments empty for the first chain encoding, entity and
// commitments as JSON), then its leaf's index.
var CSVHeader = []string{"id", "entityKey", "entityId", "entityType", "version", "operation", "dateCreatedUtc", "actor",
	"prevHash", "hash", "entity", "chain", "commitments", "logIndex"}

// New returns a Writer of format (NDJSON or CSV) to out, in the newest
// form of the format: FormSeeds for NDJSON, FormCommitments for CSV. With
// a log, each record names its leaf and the manifest the checkpoint; log
// may be nil.
func New(out io.Writer, format string, filters map[string]string, log Log) *Writer {
	form := FormSeeds
	if format == CSV {
		form = FormCommitments
	}
	return NewForm(out, format, form, filters, log)
}

// NewForm is New in the given form: FormCommitments, or FormSeeds for
// NDJSON.
func NewForm(out io.Writer, format string, form int, filters map[string]string, log Log) *Writer {
	w := &Writer{out: out, sum: sha256.New(), m: Manifest{Format: format, Filters: filters}, log: log}
	switch {
	case form == FormSeeds && format == NDJSON:
		w.m.Form = FormSeeds
	case form != FormCommitments:
		w.failed = fmt.Errorf("export: no form %d of %s", form, format)
	}
	w.body = io.MultiWriter(out, w.sum)
	if format == CSV && w.failed == nil {
		w.csv = csv.NewWriter(w.body)
		w.failed = w.csv.Write(CSVHeader)
	}
	return w
}

// Write adds one record; it is written, with its leaf's index, by the next
// Flush, so call Flush after every page.
func (w *Writer) Write(r todo.AuditRecord) error {
	if w.failed == nil {
		w.page = append(w.page, r)
	}
	return w.failed
}

// Flush writes the records added since the last and sends what is
// buffered (CSV) on.
func (w *Writer) Flush(ctx context.Context) error {
	if w.failed != nil {
		return w.failed
	}
	var idx []int64
	if w.log != nil && len(w.page) > 0 {
		idx, w.failed = w.locate(ctx)
	}
	for i := 0; i < len(w.page) && w.failed == nil; i++ {
		var at *int64
		if idx != nil && idx[i] >= 0 {
			at = &idx[i]
		}
		w.failed = w.write(&w.page[i], at)
	}
	clear(w.page)
	w.page = w.page[:0]
	if w.csv != nil && w.failed == nil {
		w.csv.Flush()
		w.failed = w.csv.Error()
	}
	return w.failed
}

// locate finds the page's leaves in the log: -1 for those not in the tree
// of the latest checkpoint. A leaf beyond the checkpoint read before makes
// it read the latest again.
func (w *Writer) locate(ctx context.Context) ([]int64, error) {
	refs := make([]transparency.VersionRef, len(w.page))
	for i, r := range w.page {
		refs[i] = transparency.VersionRef{EntityKey: r.EntityKey, Version: r.Version}
	}
	idx, err := w.log.Locate(ctx, refs)
	if err != nil {
		return nil, err
	}
	for _, x := range idx {
		if x >= w.size {
			if err := w.readCheckpoint(ctx); err != nil {
				return nil, err
			}
			break
		}
	}
	for i, x := range idx {
		if x >= w.size {
			idx[i] = -1
		}
	}
	return idx, nil
}

// readCheckpoint reads the log's latest checkpoint; none yet is no error.
func (w *Writer) readCheckpoint(ctx context.Context) error {
	msg, c, err := w.log.Checkpoint(ctx)
	if todo.IsKind(err, todo.NotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	w.checkpoint, w.size = msg, c.Size
	return nil
}

// write writes one record in the export's form: in FormCommitments, with
// its commitments in place of the seed it may be stored with.
func (w *Writer) write(r *todo.AuditRecord, logIndex *int64) error {
	if w.m.Form != FormSeeds {
		if err := hashchain.ExpandRecord(r); err != nil {
			return err
		}
	}
	if w.csv != nil {
		var chain, commitments, at string
		if r.Chain != 0 {
			chain = strconv.Itoa(r.Chain)
		}
		if r.Commitments != nil {
			b, err := json.Marshal(r.Commitments)
			if err != nil {
				return err
			}
			commitments = string(b)
		}
		if logIndex != nil {
			at = strconv.FormatInt(*logIndex, 10)
		}
		if err := w.csv.Write([]string{r.ID, r.EntityKey, r.EntityID, r.EntityType, strconv.FormatInt(r.Version, 10), string(r.Operation),
			r.DateCreatedUTC.Format(time.RFC3339Nano), r.Actor, r.PrevHash, r.Hash, string(r.Entity), chain, commitments, at}); err != nil {
			return err
		}
	} else {
		b, err := Line{AuditRecord: *r, LogIndex: logIndex}.AppendJSON(w.line[:0])
		if err != nil {
			return err
		}
		w.line = append(b, '\n')
		if _, err := w.body.Write(w.line); err != nil {
			return err
		}
	}
	ref := refOf(r)
	if w.m.First == nil {
		w.m.First = ref
	}
	w.m.Last = ref
	w.m.Count++
	if logIndex == nil {
		w.m.Pending++
	}
	return nil
}

func refOf(r *todo.AuditRecord) *Ref {
	return &Ref{ID: r.ID, EntityKey: r.EntityKey, Version: r.Version, DateCreatedUTC: r.DateCreatedUTC, Hash: r.Hash}
}

// Close writes the manifest: the last NDJSON line {"manifest":{…}}, or the
// last CSV row, "#manifest" and the manifest's JSON in its first two
// columns (the rest empty). Its digest covers every byte before it.
func (w *Writer) Close(ctx context.Context) (Manifest, error) {
	if err := w.Flush(ctx); err != nil {
		return w.m, err
	}
	if w.log != nil && w.checkpoint == nil {
		if err := w.readCheckpoint(ctx); err != nil {
			return w.m, err
		}
	}
	if w.checkpoint != nil {
		cp := string(w.checkpoint)
		w.m.LogCheckpoint = &cp
	}
	w.m.SHA256 = hex.EncodeToString(w.sum.Sum(nil))
	b, err := json.Marshal(w.m)
	if err != nil {
		return w.m, err
	}
	if w.csv != nil {
		c := csv.NewWriter(w.out)
		row := make([]string, len(CSVHeader))
		row[0], row[1] = "#manifest", string(b)
		if err := c.Write(row); err != nil {
			return w.m, err
		}
		c.Flush()
		return w.m, c.Error()
	}
	_, err = w.out.Write(append(append([]byte(`{"manifest":`), b...), "}\n"...))
	return w.m, err
}
