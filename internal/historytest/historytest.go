// Package historytest makes the audit records of made-up histories for
// tests: versions sealed and chained as the service writes them, with no
// store.
package historytest

import (
	"fmt"
	"reflect"
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

// Fill sets f, the field of the todo property named name, to a value that
// is not its zero value and that omitempty keeps; it fails t for a type it
// has no value for.
func Fill(t testing.TB, f reflect.Value, name string) {
	t.Helper()
	switch f.Type() {
	case reflect.TypeFor[time.Time]():
		f.Set(reflect.ValueOf(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)))
	case reflect.TypeFor[*time.Time]():
		due := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
		f.Set(reflect.ValueOf(&due))
	case reflect.TypeFor[[]string]():
		f.Set(reflect.ValueOf([]string{"x"}))
	default:
		switch f.Kind() {
		case reflect.String:
			f.SetString("x")
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			f.SetInt(7)
		default:
			t.Fatalf("no value for %s, a %s: extend historytest.Fill", name, f.Type())
		}
	}
}
