package apitest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/todoaudit/todo/export"
	"github.com/todoaudit/todo/transparency"
)

// VerifiableExport runs the exports through the API and verifies them as an
// outsider would, with the log's key and its tiles served to anyone: a
// todo's history and a user's activity, in NDJSON and CSV, each record in
// the log under the manifest's checkpoint; one byte changed is refused.
// settle must bring the audit history up to date and run the integrator;
// c must be an admin.
func VerifiableExport(t *testing.T, c *Client, settle func()) {
	anyone := c.As("")
	v, err := transparency.NewVerifier(string(Want(t, anyone.Do("GET", "/api/log/key", nil), 200).Body))
	if err != nil {
		t.Fatal(err)
	}
	u := c.As("exporter")
	var ids []string
	for i := range 3 {
		id := u.Create("Work", fmt.Sprintf("todo %d", i))["id"].(string)
		for n := 2; n <= 5; n++ {
			Want(t, u.Do("PUT", "/api/todos/"+id, map[string]any{"category": "Work", "title": fmt.Sprintf("todo %d v%d", i, n), "tags": []string{"t"}}), 200)
		}
		ids = append(ids, id)
	}
	Want(t, u.Do("DELETE", "/api/todos/"+ids[2], nil), 204)
	settle()
	tiles := logTiles(anyone)
	for _, x := range []struct {
		name, path   string
		as           *Client
		count, todos int
	}{
		{"history", "/api/todos/" + ids[0] + "/history/export", u, 5, 1},
		{"activity", "/api/activity/export", u, 16, 3}, // five versions each, and a deletion
		{"admin audit by actor", "/api/manage/audit/export?actor=exporter", c, 16, 3},
	} {
		for _, accept := range []string{export.NDJSON, export.CSV} {
			b := Want(t, x.as.Do("GET", x.path, nil, "Accept: "+accept), 200).Body
			rep, err := export.Verify(bytes.NewReader(b), v, tiles)
			if err != nil {
				t.Fatalf("%s export (%s) does not verify: %v\n%s", x.name, accept, err, b)
			}
			if m := rep.Manifest; m.Count != x.count || m.Format != accept || m.Pending != 0 || rep.Links != x.count-x.todos {
				t.Fatalf("%s export (%s): %+v, %d links", x.name, accept, m, rep.Links)
			}
			// NDJSON shows the records' seeds, not their commitments.
			if seeds := accept == export.NDJSON; seeds != bytes.Contains(b, []byte(`"seed":"`)) || seeds == bytes.Contains(b, []byte(`salt`)) {
				t.Fatalf("%s export (%s) shows seeds: %t, want %t", x.name, accept, !seeds, seeds)
			}
			// A value edited fails its commitment, or in a record shown with
			// its seed, the hash.
			edited := bytes.Replace(b, []byte("todo 0 v3"), []byte("todo 0 v4"), 1)
			if _, err := export.Verify(bytes.NewReader(edited), v, tiles); err == nil || !strings.Contains(err.Error(), "does not match its") {
				t.Fatalf("%s export (%s) with one byte changed: %v", x.name, accept, err)
			}
		}
	}
}
