package service_test

import (
	"context"
	"testing"

	"github.com/todoaudit/todo/service"
)

// BenchmarkHistoryPage20 reads the first page of 20 of a history of 21
// versions stored with their seeds: each record decoded, checked against
// its hash and given its commitments and changes.
func BenchmarkHistoryPage20(b *testing.B) {
	svc, c := newService(b)
	id := writeVersions(b, svc, c, 21)
	ctx := service.WithUser(context.Background(), "alice")
	for b.Loop() {
		if _, err := svc.History(ctx, id, 20, ""); err != nil {
			b.Fatal(err)
		}
	}
}
