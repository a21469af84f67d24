// Package bolt is the embedded document store: the store.Store contract on a
// single bbolt file, with the Cosmos DB semantics the product relies on, so
// the whole API runs and is tested on one machine without Azure.
//
// Layout: one top-level bucket per container holding an "items" bucket keyed
// by the order-preserving encoding of the full partition key followed by the
// id (so partitions and hierarchical prefixes are contiguous key ranges) and
// a "feed" bucket keyed by log sequence number (LSN) that points at the
// latest version of every live item. Rewriting an item moves its feed entry
// to the new LSN and deleting it removes the entry, which gives the change
// feed its latest-version semantics: coalesced, no deletes, ordered. An
// item retired in an atomic group (store.Retire) is deleted, and its key
// reserved in memory (reservations) until a create may take it. Since
// commits take increasing LSNs at non-decreasing times, the feed also
// answers "written since" (a lower bound on _ts) by binary search. A
// container whose indexing policy sorts properties also has an "order"
// bucket, a range index of those properties per partition, which serves
// ORDER BY a page at a time.
//
// Writes are durable when acknowledged: every commit is fsynced, and
// concurrent writers are grouped into shared commits by a committer that
// takes whatever queued while the previous commit was syncing.
//
// Request charges are the estimates of package ru, which the partition
// analyzer uses too.
package bolt
