// Command putdoc writes one document into a container of an embedded
// store, as another tool with write access to the store's file could, for
// the page's end-to-end tests of what the audit does with a document it
// cannot use (a dead letter). Run it only while the handler is stopped.
//
//	putdoc DATA_DIR CONTAINER PARTITION_KEY_JSON DOCUMENT_JSON
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/store"
)

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: putdoc DATA_DIR CONTAINER PARTITION_KEY_JSON DOCUMENT_JSON")
		os.Exit(2)
	}
	if err := put(os.Args[1], os.Args[2], os.Args[3], os.Args[4]); err != nil {
		fmt.Fprintln(os.Stderr, "putdoc:", err)
		os.Exit(1)
	}
}

func put(dir, container, key, doc string) error {
	var pk store.PartitionKey
	if err := json.Unmarshal([]byte(key), &pk); err != nil {
		return fmt.Errorf("partition key: %w", err)
	}
	if !json.Valid([]byte(doc)) {
		return fmt.Errorf("the document is not JSON")
	}
	ctx := context.Background()
	s, err := bolt.Open(dir, nil, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	c, err := s.Container(ctx, container)
	if err != nil {
		return err
	}
	_, err = c.Upsert(ctx, pk, []byte(doc), nil)
	return err
}
