// Command tamper alters one audit record in an embedded store, as someone
// with write access to the store's file could, for the page's end-to-end
// test that such a record fails verification: it sets a member of the
// record's entity snapshot and seals the record again (its hash recomputed
// over the altered content), so that the record agrees with itself and
// only the transparency log, which holds the old hash, can tell. Run it
// only while the handler is stopped.
//
//	tamper DATA_DIR ENTITY_KEY RECORD_ID MEMBER VALUE
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/store"
)

func main() {
	if len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: tamper DATA_DIR ENTITY_KEY RECORD_ID MEMBER VALUE")
		os.Exit(2)
	}
	if err := tamper(os.Args[1], os.Args[2], os.Args[3], os.Args[4], os.Args[5]); err != nil {
		fmt.Fprintln(os.Stderr, "tamper:", err)
		os.Exit(1)
	}
}

func tamper(dir, entityKey, id, member, value string) error {
	ctx := context.Background()
	s, err := bolt.Open(dir, nil, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	audit, err := s.Container(ctx, partition.DefaultContainerNames.Audit)
	if err != nil {
		return err
	}
	pk := store.PartitionKey{entityKey}
	it, err := audit.Read(ctx, pk, id)
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(it.Body, &doc); err != nil {
		return err
	}
	entity, ok := doc["entity"].(map[string]any)
	if !ok {
		return fmt.Errorf("record %s has no entity", id)
	}
	entity[member] = value
	for name := range doc {
		if strings.HasPrefix(name, "_") {
			delete(doc, name)
		}
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	var r todo.AuditRecord
	if err := json.Unmarshal(body, &r); err != nil {
		return err
	}
	a, err := hashchain.Content(&r)
	if err != nil {
		return err
	}
	doc["hash"] = a.Hash(r.PrevHash)
	if body, err = json.Marshal(doc); err != nil {
		return err
	}
	_, err = audit.Replace(ctx, pk, body, nil)
	return err
}
