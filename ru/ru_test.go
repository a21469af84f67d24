package ru

import (
	"math"
	"testing"
)

func TestCharges(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  float64
		want float64
	}{
		{"read empty", Read(0), 1},
		{"read 1KB", Read(1024), 1},
		{"read 1KB+1", Read(1025), 2},
		{"write 600B", Write(600), 6},
		{"write 3KB", Write(3000), 18},
		{"change feed 1.5KB", ChangeFeed(1536), 3},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

// Cases worked out by hand from the factors Cosmos DB documents: 1 RU per
// KB a query returns ("a query that returns 1,000 1-KB items costs about
// 1,000 RU"), about 2.5 RU for every physical partition a query visits, and
// a charge that follows the documents retrieved rather than returned, so an
// equality filter on an indexed property costs its matches, not the
// partition.
func TestQueryCharges(t *testing.T) {
	for _, tc := range []struct {
		name string
		w    QueryWork
		want float64
	}{
		{"empty result still pays the partition minimum", QueryWork{Partitions: 1}, 2.5},
		{"zero partitions is charged as one", QueryWork{}, 2.5},
		// 1,000 1-KB items from one partition by an indexed filter: the
		// returned kilobytes dominate, as published.
		{"thousand 1KB items", QueryWork{Partitions: 1, Lookups: 1, Loaded: 1000, ReturnedBytes: 1000 * 1024}, 2.5 + 0.1 + 50 + 1000},
		// One 600 B todo out of a 349,158-document logical partition: an
		// indexed equality filter loads the one match...
		{"indexed equality loads the match", QueryWork{Partitions: 1, Lookups: 2, Loaded: 1, ReturnedBytes: 600}, 2.5 + 0.2 + 0.05 + 1},
		// ...a filter the index does not hold scans the partition.
		{"unindexed filter scans", QueryWork{Partitions: 1, Loaded: 349158, ReturnedBytes: 600}, 2.5 + 17457.9 + 1},
		// A cross-partition query over 4 physical partitions, one indexed
		// filter in each, two matches: the minimum four times.
		{"cross-partition minimum per physical partition", QueryWork{Partitions: 4, Lookups: 4, Loaded: 2, ReturnedBytes: 1200}, 10 + 0.4 + 0.1 + 2},
	} {
		if got := Query(tc.w); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: Query(%+v) = %v, want %v", tc.name, tc.w, got, tc.want)
		}
	}
}
