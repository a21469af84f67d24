package app_test

import (
	"fmt"
	"testing"
)

// Standalone on the embedded store, a write's audit record and activity
// entry are committed with the write: read right after it is
// acknowledged, without waiting for the audit pump, the history and the
// caller's activity hold its version.
func TestWriteCommitsItsAudit(t *testing.T) {
	s := startApp(t, nil)
	id := s.Create("Grocery", "v1")["id"].(string)
	for n := 2; n <= 5; n++ {
		want(t, s.Do("PUT", "/api/todos/"+id, map[string]any{"category": "Grocery", "title": fmt.Sprint("v", n)}), 200)
		history := want(t, s.Do("GET", "/api/todos/"+id+"/history?pageSize=100", nil), 200).JSON(t)
		if got := len(history["items"].([]any)); got != n {
			t.Fatalf("history right after version %d's write: %d versions", n, got)
		}
		activity := want(t, s.Do("GET", "/api/activity", nil), 200).JSON(t)
		if got := len(activity["items"].([]any)); got != n {
			t.Fatalf("activity right after version %d's write: %d entries", n, got)
		}
	}
}
