package service_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit"
	"github.com/todoaudit/todo/bolt/bolttest"
	"github.com/todoaudit/todo/export"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/internal/race"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/transparency"
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

// writeVersions writes the audit records of n versions of one new todo of
// alice, each with 400 bytes of notes, and returns its id.
func writeVersions(t testing.TB, svc *service.Service, c bolttest.Containers, n int64) string {
	t.Helper()
	ctx := service.WithUser(context.Background(), "alice")
	res, err := svc.Create(ctx, todo.Fields{Category: "Grocery", Title: "milk"})
	if err != nil {
		t.Fatal(err)
	}
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
		commitments := hashchain.Seal(&e)
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
	return res.Todo.ID
}

// exportMeasured exports the history of id to sink, sampling the heap
// after every page, and returns the manifest, the time it took and the
// heap's peak growth.
func exportMeasured(t testing.TB, svc *service.Service, id string, sink io.Writer, log export.Log) (export.Manifest, time.Duration, uint64) {
	t.Helper()
	ctx := service.WithUser(context.Background(), "alice")
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	w := export.New(sink, export.NDJSON, map[string]string{"id": id}, log)
	start := time.Now()
	err := svc.ExportHistory(ctx, id, w.Write, func() error {
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
	return m, time.Since(start), peak - base
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
	id := writeVersions(t, svc, c, n)
	sink := &lineSink{sum: sha256.New()}
	m, elapsed, grew := exportMeasured(t, svc, id, sink, nil)
	t.Logf("exported %d records, %d bytes in %v (%.0f records/s); heap peak %d KiB above the start",
		m.Count, sink.bytes, elapsed, float64(m.Count)/elapsed.Seconds(), grew>>10)
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
	if limit := uint64(sink.bytes / 4); grew > limit {
		t.Fatalf("heap grew by %d KiB during an export of %d KiB: more than a quarter of it", grew>>10, sink.bytes>>10)
	}
}

// The export of 100,000 versions in the transparency log, each line with
// its leaf's index, and its verification offline from the log's tiles: go
// test -run '^$' -bench ExportWithLog -benchtime 1x ./service/ (the
// integration of the 100,000 leaves first takes about a minute).
func BenchmarkExportWithLog(b *testing.B) {
	const n = 100_000
	svc, c := newService(b)
	id := writeVersions(b, svc, c, n)
	keys, err := transparency.LoadOrCreateKeys(filepath.Join(b.TempDir(), "log.key"), "todo.test/log")
	if err != nil {
		b.Fatal(err)
	}
	anchors := &transparency.DirAnchors{Dir: b.TempDir()}
	in := &transparency.Integrator{Audit: c.Audit, Leases: c.Leases, Keys: keys, Anchors: anchors, Log: slog.New(slog.DiscardHandler),
		MaxBatch: 5000, Now: func() time.Time { return time.Now().Add(time.Hour) }}
	started := time.Now()
	if res, err := in.Run(context.Background()); err != nil || res.Size != n {
		b.Fatalf("integrated %+v: %v", res, err)
	}
	b.Logf("integrated %d leaves in %v", n, time.Since(started))
	l := &transparency.Log{Leases: c.Leases, Audit: c.Audit, Keys: keys, Anchors: anchors}
	tiles := transparency.TileFetcher(func(p string) ([]byte, error) {
		t, _, err := l.Tile(context.Background(), p)
		return t, err
	})
	b.ResetTimer()
	path := filepath.Join(b.TempDir(), "export.ndjson")
	for range b.N {
		file, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		m, elapsed, grew := exportMeasured(b, svc, id, file, l)
		if m.Count != n || m.Pending != 0 || m.LogCheckpoint == nil {
			b.Fatalf("manifest %+v", m)
		}
		size, _ := file.Seek(0, io.SeekCurrent)
		if _, err := file.Seek(0, io.SeekStart); err != nil {
			b.Fatal(err)
		}
		started := time.Now()
		if _, err := export.Verify(file, keys.Verifier, tiles); err != nil {
			b.Fatal(err)
		}
		verified := time.Since(started)
		file.Close()
		b.ReportMetric(float64(n)/elapsed.Seconds(), "records/s")
		b.ReportMetric(float64(grew>>10), "heap-KiB")
		b.ReportMetric(float64(n)/verified.Seconds(), "verified-records/s")
		b.Logf("exported %d records, %d bytes in %v; heap peak %d KiB above the start; verified in %v", n, size, elapsed, grew>>10, verified)
	}
}
