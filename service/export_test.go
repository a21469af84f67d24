package service_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit"
	"github.com/todoaudit/todo/audit/export"
	"github.com/todoaudit/todo/internal/race"
	"github.com/todoaudit/todo/service"
)

// lineSink checks an NDJSON export as it arrives without keeping it: it
// hashes every line but the last (the manifest) and counts them.
type lineSink struct {
	sum     hash.Hash
	pending []byte // the last complete line, not hashed yet
	partial []byte
	lines   int
	bytes   int64
}

func (s *lineSink) Write(b []byte) (int, error) {
	n := len(b)
	s.bytes += int64(n)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			s.partial = append(s.partial, b...)
			break
		}
		if s.pending != nil {
			s.sum.Write(s.pending)
			s.lines++
		}
		s.pending = append(append(s.pending[:0], s.partial...), b[:i+1]...)
		s.partial, b = s.partial[:0], b[i+1:]
	}
	return n, nil
}

// 100,000 versions of one todo export in memory that stays a small part
// of the export's size, and the manifest's count, digest and first and
// last records are the export's own.
func TestExportBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100,000 audit records")
	}
	race.Heavy(t)
	const n = 100_000
	svc, c := newService(t)
	ctx := service.WithUser(context.Background(), "alice")
	res, err := svc.Create(ctx, todo.Fields{Category: "Grocery", Title: "milk"})
	if err != nil {
		t.Fatal(err)
	}
	id := res.Todo.ID
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	notes := strings.Repeat("n", 400)
	var docs []todo.AuditRecord
	prev := ""
	for v := int64(1); v <= n; v++ {
		e := res.Todo
		e.Version, e.Notes, e.Title, e.Hash = v, notes, fmt.Sprint("title ", v), prev
		e.UpdatedAt, e.LastOperation = at.Add(time.Duration(v)*time.Second), todo.OpUpdate
		if v == 1 {
			e.LastOperation = todo.OpCreate
		}
		commitments := e.Seal()
		prev = e.Hash
		rec, err := todo.NewAuditRecord(todo.NewVersion(e, commitments, 0))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, rec)
		if len(docs) == 5000 || v == n {
			if err := (audit.Outcome{Records: docs}).Write(context.Background(), c.Audit); err != nil {
				t.Fatal(err)
			}
			docs = docs[:0]
		}
	}
	docs = nil
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	sink := &lineSink{sum: sha256.New()}
	w := export.New(sink, export.NDJSON, map[string]string{"id": id}, nil)
	start := time.Now()
	err = svc.ExportHistory(ctx, id, w.Write, func() error {
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
		return w.Flush(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := w.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	t.Logf("exported %d records, %d bytes in %v (%.0f records/s); heap peak %d KiB above the %d KiB before",
		m.Count, sink.bytes, elapsed, float64(m.Count)/elapsed.Seconds(), (peak-base)>>10, base>>10)
	var tail struct {
		Manifest export.Manifest `json:"manifest"`
	}
	if err := json.Unmarshal(sink.pending, &tail); err != nil {
		t.Fatalf("last line %q is not the manifest: %v", sink.pending, err)
	}
	switch got := tail.Manifest; {
	case got.Count != n || sink.lines != n:
		t.Fatalf("manifest count %d, %d lines, want %d", got.Count, sink.lines, n)
	case got.SHA256 != hex.EncodeToString(sink.sum.Sum(nil)):
		t.Fatalf("manifest digest %s, the lines before it hash to %x", got.SHA256, sink.sum.Sum(nil))
	case got.First.Version != 1 || got.Last.Version != n || got.Filters["id"] != id:
		t.Fatalf("manifest %+v", got)
	}
	if limit := uint64(sink.bytes / 4); peak-base > limit {
		t.Fatalf("heap grew by %d KiB during an export of %d KiB: more than a quarter of it", (peak-base)>>10, sink.bytes>>10)
	}
}
