// Package historytest makes the audit records of made-up histories for
// tests: versions sealed and chained as the service writes them, with no
// store.
package historytest

import (
	"fmt"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/hashchain"
)

// Versions returns the audit records of versions 1 to n of td, made by
// its owner: version v is titled td.Title and v, one second after the
// version before, the first td.CreatedAt.
func Versions(t testing.TB, td todo.Todo, n int) []todo.AuditRecord {
	t.Helper()
	title := td.Title
	var out []todo.AuditRecord
	for v := 1; v <= n; v++ {
		td.Version, td.Title = int64(v), fmt.Sprintf("%s %d", title, v)
		td.LastOperation, td.UpdatedBy, td.UpdatedAt = todo.OpUpdate, td.UserID, td.CreatedAt.Add(time.Duration(v)*time.Second)
		if v == 1 {
			td.LastOperation = todo.OpCreate
		}
		c := hashchain.Seal(&td)
		rec, err := todo.NewAuditRecord(todo.NewVersion(td, c, 0))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}
