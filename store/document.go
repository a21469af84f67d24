package store

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/jsondoc"
)

// CheckKey checks that pk is a full partition key of a container with this
// spec, as Cosmos DB does: one non-empty value per key path. Both stores
// refuse the same keys the same way.
func (spec ContainerSpec) CheckKey(pk PartitionKey) error {
	if len(pk) != len(spec.PartitionKeyPaths) {
		return todo.Errorf(todo.Invalid, "partition key %s does not match the container's %d key paths", pk, len(spec.PartitionKeyPaths))
	}
	for _, v := range pk {
		if v == "" {
			return todo.Errorf(todo.Invalid, "partition key %s has an empty component", pk)
		}
	}
	return nil
}

// Document is what a store reads of a document before it writes it.
type Document struct {
	ID string
	// TTL is the raw value of the ttl member; nil when there is none.
	TTL json.RawMessage
	// System reports whether the document carries a system property
	// (_rid, _self, _etag, _attachments, _ts or _lsn), which the store owns.
	System bool
	// Sorted holds the raw values of the spec's sorted index paths, in
	// order; nil where the document has none.
	Sorted []json.RawMessage
}

// SystemProperties are the properties Cosmos DB owns on every item.
var SystemProperties = []string{"_rid", "_self", "_etag", "_attachments", "_ts", "_lsn"}

// CheckDocument checks a document to be written under the full key pk as
// Cosmos DB does before it stores anything: a JSON object of at most
// todo.MaxDocumentBytes, with a valid string id and partition key
// properties equal to pk. It reads only the members it needs, and checks
// the rest is JSON in the same pass, rather than decoding the document.
func (spec ContainerSpec) CheckDocument(pk PartitionKey, doc []byte) (Document, error) {
	var d Document
	if len(doc) > todo.MaxDocumentBytes {
		return d, todo.Errorf(todo.TooLarge, "document is larger than %d bytes", todo.MaxDocumentBytes)
	}
	sorted := spec.Indexing.SortedPaths()
	keys := make([]json.RawMessage, len(spec.PartitionKeyPaths))
	var names [3]string // a key has at most three paths in Cosmos DB
	keyNames := names[:0]
	for _, path := range spec.PartitionKeyPaths {
		keyNames = append(keyNames, strings.TrimPrefix(path, "/"))
	}
	var id json.RawMessage
	if len(sorted) > 0 {
		d.Sorted = make([]json.RawMessage, len(sorted))
	}
	err := jsondoc.EachValid(doc, func(name, value []byte) bool {
		switch {
		case string(name) == "id":
			id = value
		case string(name) == "ttl":
			d.TTL = value
		case len(name) > 0 && name[0] == '_' && slices.Contains(SystemProperties, string(name)):
			d.System = true
		}
		for i, n := range keyNames {
			if string(name) == n {
				keys[i] = value
			}
		}
		for i, path := range sorted {
			if string(name) == path {
				d.Sorted[i] = value
			}
		}
		return true
	})
	if err != nil {
		return d, todo.Errorf(todo.Invalid, "document is not a JSON object")
	}
	if id == nil {
		return d, todo.Errorf(todo.Invalid, "document has no string id")
	}
	if d.ID, err = jsondoc.String(id); err != nil {
		return d, todo.Errorf(todo.Invalid, "document has no string id")
	}
	if err := todo.ValidateID(d.ID); err != nil {
		return d, err
	}
	for i, path := range spec.PartitionKeyPaths {
		if keys[i] == nil || i >= len(pk) || !jsondoc.StringIs(keys[i], pk[i]) {
			return d, todo.Errorf(todo.Invalid, "partition key %s does not match the document's %s", pk, path)
		}
	}
	return d, nil
}

// SortedValues returns the raw values of the spec's sorted index paths in
// a stored document, as CheckDocument reads them.
func (spec ContainerSpec) SortedValues(doc []byte) ([]json.RawMessage, error) {
	sorted := spec.Indexing.SortedPaths()
	vals := make([]json.RawMessage, len(sorted))
	err := jsondoc.Each(doc, func(name, value []byte) bool {
		for i, path := range sorted {
			if string(name) == path {
				vals[i] = value
			}
		}
		return true
	})
	return vals, err
}
