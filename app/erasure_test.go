package app_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/todoaudit/todo/app/apitest"
)

// Erasure on the embedded store: after it, the store's file itself holds
// no byte of the erased values (the erasure overwrites the pages bbolt
// freed).
func TestErasure(t *testing.T) {
	dir := t.TempDir()
	s := startApp(t, map[string]string{"DATA_DIR": dir, "ADMIN_USERS": "root"})
	scan := func() []byte {
		b, err := os.ReadFile(filepath.Join(dir, "store.db"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	root := s.As("root")
	apitest.Erasure(t, root.Client, "hierarchical", scan, s.integrate, true)
	const path = "/api/manage/audit?owner=alice&operation=erase"
	conforms(t, specRouter(t), "GET", path, "", 200, want(t, root.Do("GET", path, nil), 200))
}
