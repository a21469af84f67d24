// Package ru is the request-unit estimate the embedded store reports for
// its calls, in the spirit of Cosmos DB's published costs (a 1 KB point read
// costs 1 RU, a 1 KB write about 6 RU). The embedded store charges with it
// and the partition analyzer estimates read and write costs with it, so the
// two always say the same thing:
//
//	point read    max(1, ceil(KB))
//	write/delete  6 × max(1, ceil(KB))      per item, summed over a batch
//	query         2.5 + 0.05 × items scanned + ceil(KB returned)
//	change feed   1 + ceil(KB returned)
package ru

import "math"

// KB is the size in whole kilobytes that a call is charged for: at least 1.
func KB(bytes int64) float64 { return math.Max(1, math.Ceil(float64(bytes)/1024)) }

// Read is the charge of a point read of an item of the given size.
func Read(bytes int64) float64 { return KB(bytes) }

// Write is the charge of writing (creating, replacing, upserting or
// deleting) one item of the given size; a batch costs the sum of its items.
func Write(bytes int64) float64 { return 6 * KB(bytes) }

// QueryBase is the fixed part of every query request.
const QueryBase = 2.5

// Query is the charge of one query request that scanned the given number of
// items and returned the given number of bytes.
func Query(scanned, returnedBytes int64) float64 {
	return QueryBase + 0.05*float64(scanned) + math.Ceil(float64(returnedBytes)/1024)
}

// ChangeFeed is the charge of one change feed read that returned the given
// number of bytes.
func ChangeFeed(returnedBytes int64) float64 { return 1 + math.Ceil(float64(returnedBytes)/1024) }
