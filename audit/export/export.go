// Package export writes audit records as a file an outsider can check: one
// record per line, NDJSON or CSV, as they are read page by page (memory
// stays that of one page whatever the size), then a manifest with the
// filters, the count, the first and last record and the SHA-256 of every
// byte written before it.
package export

import (
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"hash"
	"io"
	"strconv"
	"time"

	"github.com/todoaudit/todo"
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

// Manifest describes an export. LogCheckpoint is the transparency log
// checkpoint every exported version is included under; null until the
// log exists.
type Manifest struct {
	Format        string            `json:"format"`
	Filters       map[string]string `json:"filters"`
	Count         int               `json:"count"`
	First         *Ref              `json:"first"`
	Last          *Ref              `json:"last"`
	SHA256        string            `json:"sha256"`
	LogCheckpoint *string           `json:"logCheckpoint"`
}

// Writer writes records in one format and then the manifest.
type Writer struct {
	out    io.Writer
	sum    hash.Hash
	body   io.Writer // out and sum
	csv    *csv.Writer
	m      Manifest
	failed error
}

// CSVHeader is the CSV export's first line.
var CSVHeader = []string{"id", "entityKey", "entityId", "entityType", "version", "operation", "dateCreatedUtc", "actor", "prevHash", "hash", "entity"}

// New returns a Writer of format (NDJSON or CSV) to out.
func New(out io.Writer, format string, filters map[string]string) *Writer {
	w := &Writer{out: out, sum: sha256.New(), m: Manifest{Format: format, Filters: filters}}
	w.body = io.MultiWriter(out, w.sum)
	if format == CSV {
		w.csv = csv.NewWriter(w.body)
		w.failed = w.csv.Write(CSVHeader)
	}
	return w
}

// Write writes one record.
func (w *Writer) Write(r todo.AuditRecord) error {
	if w.failed != nil {
		return w.failed
	}
	if w.csv != nil {
		w.failed = w.csv.Write([]string{r.ID, r.EntityKey, r.EntityID, r.EntityType, strconv.FormatInt(r.Version, 10), string(r.Operation),
			r.DateCreatedUTC.Format(time.RFC3339Nano), r.Actor, r.PrevHash, r.Hash, string(r.Entity)})
	} else {
		var b []byte
		if b, w.failed = json.Marshal(r); w.failed == nil {
			_, w.failed = w.body.Write(append(b, '\n'))
		}
	}
	if w.failed != nil {
		return w.failed
	}
	ref := &Ref{ID: r.ID, EntityKey: r.EntityKey, Version: r.Version, DateCreatedUTC: r.DateCreatedUTC, Hash: r.Hash}
	if w.m.First == nil {
		w.m.First = ref
	}
	w.m.Last = ref
	w.m.Count++
	return nil
}

// Flush sends what is buffered (CSV) on.
func (w *Writer) Flush() error {
	if w.csv != nil && w.failed == nil {
		w.csv.Flush()
		w.failed = w.csv.Error()
	}
	return w.failed
}

// Close writes the manifest: the last NDJSON line {"manifest":{…}}, or the
// last CSV row, "#manifest" and the manifest's JSON in its first two
// columns (the rest empty). Its digest covers every byte before it.
func (w *Writer) Close() (Manifest, error) {
	if err := w.Flush(); err != nil {
		return w.m, err
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
