// Package ru is the request-unit estimate the embedded store reports for
// its calls, after Cosmos DB's published costs. The embedded store charges
// with it and the partition analyzer estimates read and write costs with
// it, so the two always say the same thing:
//
//	point read    max(1, ceil(KB))                          1 KB read = 1 RU (published)
//	write/delete  6 × max(1, ceil(KB))   per item, summed over a batch
//	query         2.5 × physical partitions visited         the per-partition minimum
//	              + 0.1 × index lookups                      one per indexed filter, per partition
//	              + 0.05 × documents loaded                  the index's matches, or every document scanned
//	              + ceil(KB returned)                        1 KB returned = 1 RU (published)
//	change feed   1 + ceil(KB returned)
//
// A query loads only the documents the index finds for its filters on
// indexed properties; with no such filter it loads (scans) every document
// of the partitions it visits, and the filters are evaluated on each.
// The README lists the sources: Cosmos DB publishes the point-read and
// returned-data figures, the per-physical-partition minimum of about
// 2.5 RU, and that a query's charge grows with the documents it retrieves
// beyond those it returns; the lookup and load factors are this model's
// own, not published.
package ru

import "math"

// KB is the size in whole kilobytes that a call is charged for: at least 1.
func KB(bytes int64) float64 { return math.Max(1, math.Ceil(float64(bytes)/1024)) }

// Read is the charge of a point read of an item of the given size.
func Read(bytes int64) float64 { return KB(bytes) }

// Write is the charge of writing (creating, replacing, upserting or
// deleting) one item of the given size; a batch costs the sum of its items.
func Write(bytes int64) float64 { return 6 * KB(bytes) }

// The query charge's factors.
const (
	// PartitionMinimum is charged for every physical partition a query
	// request visits, even one that returns nothing.
	PartitionMinimum = 2.5
	// LookupCharge is one index lookup: one indexed filter in one
	// physical partition.
	LookupCharge = 0.1
	// LoadCharge is one document loaded to evaluate or return it.
	LoadCharge = 0.05
)

// QueryWork is what one query request did.
type QueryWork struct {
	// Partitions is the number of physical partitions visited; at least
	// one is charged.
	Partitions int
	// Lookups counts index lookups: the filters the index serves, in every
	// partition visited.
	Lookups int
	// Loaded counts the documents read from storage: the index's matches,
	// or every document of the partitions visited when no filter uses the
	// index.
	Loaded int64
	// ReturnedBytes is the size of the documents returned.
	ReturnedBytes int64
}

// Query is the charge of one query request.
func Query(w QueryWork) float64 {
	return PartitionMinimum*float64(max(1, w.Partitions)) +
		LookupCharge*float64(w.Lookups) +
		LoadCharge*float64(w.Loaded) +
		math.Ceil(float64(w.ReturnedBytes)/1024)
}

// ChangeFeed is the charge of one change feed read that returned the given
// number of bytes.
func ChangeFeed(returnedBytes int64) float64 { return 1 + math.Ceil(float64(returnedBytes)/1024) }
