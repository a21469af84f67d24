package cosmos

import (
	"context"
	"testing"

	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/service/chaintest"
)

// Every attack on the hash chain the service can notice without an
// outside log, on the Cosmos DB adapter over the wire.
func TestChainAttacks(t *testing.T) {
	wire(t)
	chaintest.Run(t, partition.Category, func(t *testing.T) chaintest.Containers {
		specs, err := partition.Containers(partition.Category, partition.DefaultContainerNames)
		if err != nil {
			t.Fatal(err)
		}
		s := openWire(t, specs, nil)
		todos, err := s.Container(context.Background(), specs[0].Name)
		if err != nil {
			t.Fatal(err)
		}
		audit, err := s.Container(context.Background(), specs[1].Name)
		if err != nil {
			t.Fatal(err)
		}
		leases, err := s.Container(context.Background(), specs[2].Name)
		if err != nil {
			t.Fatal(err)
		}
		return chaintest.Containers{Todos: todos, Audit: audit, Leases: leases}
	})
}
