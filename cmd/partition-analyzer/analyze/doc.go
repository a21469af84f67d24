// Package analyze is the partition design analyzer: it reads a
// workload of todo documents, either a JSON Lines export of the todo
// container or a seeded synthetic workload, and reports for each partition
// scheme how big its logical partitions get, how skewed its writes are, how
// many physical partitions it needs and whether the hottest one would be
// throttled, what each query pattern costs, and which scheme to choose.
//
// # Streaming and memory
//
// Records are aggregated as they stream in, in maps keyed by the encoded
// partition key of each scheme plus one small entry per user: memory grows
// with the number of distinct partitions and users, never with the number
// of documents. The one exception is an export from a store of another
// scheme evaluated as synthetic: its version documents carry no
// partitionKey, so the analyzer remembers the bucket of every todo id to put
// its versions next to it (about 100 bytes per todo).
//
// # The model
//
// Partition keys come from the schemes themselves (partition.New, KeyOf,
// List, Admin): the analyzer never re-implements the mapping. A document
// exported from a synthetic store is counted under the partitionKey it
// carries. A todo without one (a generated workload, or an export of another
// scheme) is given n = sequence mod buckets from a per-user counter kept in
// memory, the rule of the scheme's sequence document (the first todo of a
// user gets sequence 0); TestSyntheticSimulationMatchesScheme checks the
// two agree through the embedded store. Under synthetic every create also
// reads and replaces the user's sequence document in bucket 0: that write is
// counted there.
//
// Sizes are the byte length of each exported line plus a configurable
// per-document overhead for system properties, or the item size of a
// generated workload. Every write (create and each update, the todo's
// version number) is a batch of the todo and its version document (the
// outbox), charged 6 RU per started KB of each, as the embedded store
// charges (package ru). Version documents occupy storage in the todo's
// partition until their TTL expires: exported ones are counted as they are;
// for a generated workload the versions written within the retention window
// before the end of the time span are counted.
//
// Physical partitions: max(1, ceil(throughput / 10,000 RU/s), ceil(data /
// 50 GB)), each an equal range of the hash space. Cosmos DB places a logical
// partition by MurmurHash3 of its effective partition key, with the first
// level of a hierarchical key deciding the range first; the analyzer uses
// MurmurHash3_x86_32 of each key component's UTF-8 instead (first level in
// the high 32 bits), an approximation with the same property that one user's hierarchical
// partitions are neighbours. The write load tested is the demand (default:
// half the provisioned throughput, the rest left to reads) spread as the
// workload's write charges are; a physical partition is throttled when its
// share of it exceeds its share of the throughput, and no logical partition
// can take more than 10,000 RU/s however many physical partitions there are.
//
// Reads are estimated from the scheme's query plans with the embedded
// store's query charge (package ru): a plan whose filters the todo
// container's indexing policy answers loads only the documents it returns;
// one with a filter on an unindexed property loads every document in the
// partitions it reads. Every page is a request, a fan-out is one request per
// logical partition, a cross-partition query one request per physical
// partition, and each request pays the per-partition minimum.
//
// For a generated workload, whose records carry the times of their writes,
// the analyzer also estimates one page of a user's activity in the audit
// container: every write is an audit record, and the page is read either
// by a cross-partition query on properties the audit container did not
// index before the activity view, or from the view's month partitions (see
// activity.go). TestActivityEstimateMatchesStore checks the estimate against
// the embedded store holding the same workload's audit.
package analyze
