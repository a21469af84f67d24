package store

import (
	"encoding/json"
	"strings"

	"github.com/todoaudit/todo"
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

// CheckDocument checks a document to be written under the full key pk as
// Cosmos DB does before it stores anything: a JSON object of at most
// todo.MaxDocumentBytes, with a valid string id and partition key
// properties equal to pk. It returns the id and the top-level fields.
func (spec ContainerSpec) CheckDocument(pk PartitionKey, doc []byte) (string, map[string]json.RawMessage, error) {
	if len(doc) > todo.MaxDocumentBytes {
		return "", nil, todo.Errorf(todo.TooLarge, "document is larger than %d bytes", todo.MaxDocumentBytes)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(doc, &fields); err != nil || fields == nil {
		return "", nil, todo.Errorf(todo.Invalid, "document is not a JSON object")
	}
	var id string
	if raw, ok := fields["id"]; !ok || json.Unmarshal(raw, &id) != nil {
		return "", nil, todo.Errorf(todo.Invalid, "document has no string id")
	}
	if err := todo.ValidateID(id); err != nil {
		return "", nil, err
	}
	for i, path := range spec.PartitionKeyPaths {
		var v string
		raw, ok := fields[strings.TrimPrefix(path, "/")]
		if !ok || json.Unmarshal(raw, &v) != nil || i >= len(pk) || v != pk[i] {
			return "", nil, todo.Errorf(todo.Invalid, "partition key %s does not match the document's %s", pk, path)
		}
	}
	return id, fields, nil
}
