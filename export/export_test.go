package export_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/export"
)

// In both formats the manifest is the last line, its digest is that of
// every byte before it, and it names the first and last records.
func TestManifest(t *testing.T) {
	recs := []todo.AuditRecord{
		{ID: "Grocery:1:v1", EntityKey: "todo/alice/Grocery:1", Version: 1, Entity: json.RawMessage(`{"title":"a, \"quoted\"\nline"}`), DateCreatedUTC: time.Unix(1, 0).UTC()},
		{ID: "Grocery:1:v2", EntityKey: "todo/alice/Grocery:1", Version: 2, Entity: json.RawMessage(`{}`), DateCreatedUTC: time.Unix(2, 0).UTC()},
	}
	for _, format := range []string{export.NDJSON, export.CSV} {
		var out bytes.Buffer
		w := export.New(&out, format, map[string]string{"owner": "alice"}, nil)
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		m, err := w.Close(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		b := out.Bytes()
		var body []byte
		var got export.Manifest
		if format == export.NDJSON {
			i := bytes.LastIndexByte(b[:len(b)-1], '\n')
			body = b[:i+1]
			var line struct {
				Manifest export.Manifest `json:"manifest"`
			}
			if err := json.Unmarshal(b[i+1:], &line); err != nil {
				t.Fatal(err)
			}
			got = line.Manifest
		} else {
			rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
			if err != nil || len(rows) != 4 || rows[3][0] != "#manifest" || rows[1][10] != string(recs[0].Entity) {
				t.Fatalf("CSV rows %q: %v", rows, err)
			}
			body = b[:bytes.LastIndex(b, []byte("#manifest"))]
			_ = json.Unmarshal([]byte(rows[3][1]), &got)
		}
		sum := sha256.Sum256(body)
		if got.SHA256 != hex.EncodeToString(sum[:]) || got.SHA256 != m.SHA256 || got.Count != 2 ||
			got.First.ID != recs[0].ID || got.Last.ID != recs[1].ID || got.Filters["owner"] != "alice" || got.Format != format {
			t.Fatalf("%s: manifest %+v, body digest %x", format, got, sum)
		}
	}
}

// A line appends what json.Marshal writes of it, with an index and
// without.
func TestLineAppendJSON(t *testing.T) {
	at := time.Date(2026, 12, 6, 7, 13, 53, 51000000, time.UTC)
	rec := todo.AuditRecord{ID: "Grocery:0d:v2", EntityKey: "todo/alice/Grocery:0d", EntityID: "Grocery:0d", EntityType: todo.EntityTypeTodo,
		Version: 2, Operation: todo.OpUpdate, Entity: json.RawMessage(`{"id":"Grocery:0d","title":"a\u003cb"}`), DateCreatedUTC: at,
		Actor: "alice", PrevHash: "0f", Hash: "1e", Chain: 3, Commitments: todo.Commitments{"title": {Salt: "ab", Digest: "cd"}}}
	for _, index := range []*int64{nil, new(int64), new(int64(41))} {
		l := export.Line{AuditRecord: rec, LogIndex: index}
		got, err := l.AppendJSON(nil)
		want, wantErr := json.Marshal(l)
		if err != nil || wantErr != nil || !bytes.Equal(got, want) {
			t.Errorf("AppendJSON:\n got %s, %v\nwant %s, %v", got, err, want, wantErr)
		}
	}
}
