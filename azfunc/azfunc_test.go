package azfunc_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/todoaudit/todo/azfunc"
)

var update = flag.Bool("update", false, "rewrite golden files")

// docs are two change-feed documents as the trigger delivers them: user
// properties, then the system properties (_rid, _self, _etag, _attachments,
// _ts, _lsn), as the Cosmos DB trigger extension serialises them.
var docs = []json.RawMessage{
	json.RawMessage(`{"id":"Grocery:41500e6e-4e08-495b-9d09-824f03961f4a:v1","type":"todoVersion","todoId":"Grocery:41500e6e-4e08-495b-9d09-824f03961f4a","userId":"alice","category":"Grocery","version":1,"operation":"create","entity":{"id":"Grocery:41500e6e-4e08-495b-9d09-824f03961f4a","type":"todo","userId":"alice","category":"Grocery","title":"Get more milk","isCompleted":false,"version":1,"createdAt":"2025-04-09T04:46:10.12Z","updatedAt":"2025-04-09T04:46:10.12Z","lastOperation":"create","updatedBy":"alice"},"actor":"alice","at":"2025-04-09T04:46:10.12Z","ttl":2592000,"_rid":"Zk1KAKJxZWUBAAAAAAAAAA==","_self":"dbs/Zk1KAA==/colls/Zk1KAKJxZWU=/docs/Zk1KAKJxZWUBAAAAAAAAAA==/","_etag":"\"0f007efc-0000-0800-0000-67f5fb920000\"","_attachments":"attachments/","_ts":1744174482,"_lsn":4}`),
	json.RawMessage(`{"id":"Grocery:41500e6e-4e08-495b-9d09-824f03961f4a","type":"todo","userId":"alice","category":"Grocery","title":"Get more milk","isCompleted":false,"version":1,"createdAt":"2025-04-09T04:46:10.12Z","updatedAt":"2025-04-09T04:46:10.12Z","lastOperation":"create","updatedBy":"alice","_rid":"Zk1KAKJxZWUCAAAAAAAAAA==","_self":"dbs/Zk1KAA==/colls/Zk1KAKJxZWU=/docs/Zk1KAKJxZWUCAAAAAAAAAA==/","_etag":"\"0f007ffc-0000-0800-0000-67f5fb920000\"","_attachments":"attachments/","_ts":1744174482,"_lsn":5}`),
}

var when = time.Date(2025, 4, 9, 4, 46, 10, 723203000, time.UTC)

const guid = "2a3e8f7c-0d1b-4b6e-9a53-7d3c1e9f0b21"

func golden(t *testing.T, name string, got []byte) []byte {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update once)", err)
	}
	return want
}

// The envelope the pump sends is byte-for-byte what an extension 4.x host
// sends: documents as a JSON string holding a JSON string holding the array.
func TestTriggerRequestGolden(t *testing.T) {
	req, err := azfunc.NewTriggerRequest("AuditTrigger", "documents", docs, when, guid)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	if want := golden(t, "cosmos-trigger-v4.json", got); !bytes.Equal(bytes.TrimSpace(want), got) {
		t.Fatalf("envelope differs from golden:\n got %s\nwant %s", got, want)
	}
	// It is a string, whose value is a string, whose value is the array.
	var once, twice string
	if err := json.Unmarshal(req.Data["documents"], &once); err != nil {
		t.Fatal("documents is not a JSON string")
	}
	if err := json.Unmarshal([]byte(once), &twice); err != nil {
		t.Fatal("documents is not string-encoded twice")
	}
	if twice[0] != '[' {
		t.Fatalf("innermost value %q is not the array", twice[:10])
	}
}

// Documents decodes both extension generations and a plain array.
func TestDocumentsEncodings(t *testing.T) {
	for _, name := range []string{"cosmos-trigger-v4.json", "cosmos-trigger-v3.json", "cosmos-trigger-array.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		req, err := azfunc.DecodeRequest(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := azfunc.Documents(req.Data["documents"])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != len(docs) {
			t.Fatalf("%s: %d documents", name, len(got))
		}
		for i := range docs {
			var a, b bytes.Buffer
			_ = json.Compact(&a, docs[i])
			_ = json.Compact(&b, got[i])
			if a.String() != b.String() {
				t.Fatalf("%s: document %d = %s", name, i, b.String())
			}
		}
		var sys azfunc.Sys
		if err := json.Unmarshal(req.Metadata["sys"], &sys); err != nil || sys.MethodName != "AuditTrigger" {
			t.Fatalf("%s: sys %+v %v", name, sys, err)
		}
	}
}

func FuzzDocuments(f *testing.F) {
	for _, name := range []string{"cosmos-trigger-v4.json", "cosmos-trigger-v3.json", "cosmos-trigger-array.json"} {
		b, _ := os.ReadFile(filepath.Join("testdata", name))
		f.Add(b)
	}
	f.Add([]byte(`{"Data":{"documents":"\"\\\"\\\\\\\"[]\\\\\\\"\\\"\""}}`))
	f.Add([]byte(`{"Data":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		req, err := azfunc.DecodeRequest(bytes.NewReader(b))
		if err != nil {
			return
		}
		for _, raw := range req.Data {
			docs, err := azfunc.Documents(raw)
			if err != nil {
				continue
			}
			for _, d := range docs {
				if !json.Valid(d) || bytes.TrimSpace(d)[0] != '{' {
					t.Fatalf("accepted a document that is not a JSON object: %q", d)
				}
			}
			// What decodes re-encodes and decodes to the same documents.
			enc, err := azfunc.EncodeDocuments(docs)
			if err != nil {
				t.Fatal(err)
			}
			again, err := azfunc.Documents(enc)
			if err != nil || len(again) != len(docs) {
				t.Fatalf("round trip: %d → %d, %v", len(docs), len(again), err)
			}
		}
	})
}
