package partition

import "github.com/todoaudit/todo"

// Partition key paths of the containers other than the todo container, which
// every scheme shares.
var (
	// AuditKeyPaths partition the audit container by entity (owner
	// included), so one entity's history is one logical partition.
	AuditKeyPaths = []string{"/entityKey"}
	// LeaseKeyPaths is what the Cosmos DB trigger requires of its lease
	// container.
	LeaseKeyPaths = []string{"/id"}
)

// Scheme names.
const (
	Hierarchical = "hierarchical"
	Category     = "category"
	Synthetic    = "synthetic"
)

// Names lists the schemes, default first.
var Names = []string{Hierarchical, Category, Synthetic}

// Paths returns the todo container's partition key paths under a scheme:
// what provisioning (Bicep, or the emulator bootstrap) must create.
func Paths(scheme string) ([]string, error) {
	switch scheme {
	case Hierarchical:
		return []string{"/userId", "/category"}, nil
	case Category:
		return []string{"/category"}, nil
	case Synthetic:
		return []string{"/partitionKey"}, nil
	}
	return nil, todo.Errorf(todo.Invalid, "unknown partition scheme %q", scheme)
}
