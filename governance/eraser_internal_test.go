package governance

import (
	"encoding/json"
	"testing"
)

// The JSON form keeps every other property as it is.
func TestErasePersonalJSON(t *testing.T) {
	doc := json.RawMessage(`{"id":"Work:1","userId":"alice","category":"Work","title":"secret","notes":"n","tags":["x"],"isCompleted":true,"partitionKey":"alice-1","_etag":"e"}`)
	out, changed, err := erasePersonalJSON(doc)
	want := `{"_etag":"e","category":"Work","id":"Work:1","isCompleted":true,"partitionKey":"alice-1","title":"","userId":"alice"}`
	if err != nil || !changed || string(out) != want {
		t.Fatalf("erased %s (%v, %v), want %s", out, changed, err, want)
	}
	if again, changed, err := erasePersonalJSON(out); err != nil || changed || string(again) != want {
		t.Fatalf("a second erasure: %s %v %v", again, changed, err)
	}
}
