// Package cosmos is the Azure Cosmos DB adapter: the store.Store contract on
// azcosmos v1.5.0. It is the only package that imports azcosmos, azcore and
// azidentity.
//
// One *Store holds one azcosmos client for the whole process. Open warms it
// up: with an account key (emulators only) it creates the database and any
// missing container from its store.ContainerSpec (Hash for one key path,
// MultiHash version 2 for two or three, DefaultTimeToLive from the spec);
// with Microsoft Entra ID (managed identity in Azure, developer credentials
// locally) it creates nothing, reads every container once and fails fast,
// naming the missing database or container or the partition key paths that
// differ. Container clients and their properties are cached from then on,
// so the data path never fetches container metadata.
//
// Each store call is one Cosmos DB request (SDK retries of a throttled or
// unavailable request aside):
//
//	Read                     ReadItem                       point
//	Create/Upsert/Replace    CreateItem/UpsertItem/         point
//	  /Delete                  ReplaceItem/DeleteItem, with IfMatchEtag
//	Batch                    ExecuteTransactionalBatch      partition
//	Query (one page)         NewQueryItemsPager, one page   partition, prefix
//	                                                        or cross-partition
//	ChangeFeed               ReadChangeFeed over the full   cross-partition
//	                           feed range, one page per
//	                           physical range at most
//
// Queries are rendered as parameterised SQL from the store.Query
// specification: field names are validated identifiers, values are always
// parameters. A full partition key goes into the request and is stated in
// WHERE as well; a hierarchical prefix is sent with an empty partition key
// (the Go SDK accepts only full keys) and the prefix is stated in WHERE, so
// the gateway routes the query to the partitions under it. ORDER BY is
// refused without a full key (store.Query.Check), since the gateway cannot
// serve it across partitions for this SDK. Continuation tokens are passed
// through untouched; the API wraps them in its own token.
//
// Every call reports a store.Cost: its scope, the request charge of every
// HTTP response it caused (the x-ms-request-charge header, summed) and the
// number of HTTP requests, both counted by a pipeline policy so that SDK
// retries show up too.
//
// Calls whose context is marked store.WithLowPriority (reconcile, the move
// sweeper, the audit pump, exports) send every request with
// x-ms-cosmos-priority-level: Low, from one per-call policy, so that an
// account with priority-based execution throttles them before user
// requests, which carry no header and run at the account default (High).
//
// Errors are mapped in one place (mapError) from *azcore.ResponseError to
// todo.Error kinds: 404 NotFound, 409 Conflict, 412 PreconditionFailed, 413
// TooLarge, 400 Invalid, 429 Throttled with the x-ms-retry-after-ms hint,
// 408, 449 and 503 Unavailable, anything else Internal with the cause kept
// for logs only. Ids, partition keys, document shape and the 2 MB document
// limit are checked before any request, so a bad write is refused with
// Invalid (or TooLarge) without reaching Cosmos DB.
//
// # Testing
//
// The wire tests run the conformance suite (storetest) against
// @vercel/cosmosdb-server, a local Cosmos-protocol server that the test
// binary starts itself from node_modules (npm ci), or against the server at
// COSMOS_TEST_ENDPOINT. A test-only transport works around three of its
// protocol bugs. Its semantic gaps are skipped by name and covered by unit
// tests on scripted transports instead:
//
//   - it identifies an item by the first partition key path only;
//   - batches are not atomic and never answer 207;
//   - it never advances the change feed: every read that carries a
//     continuation gets 304, and items carry no _lsn. Only the first read of
//     the feed is tested over the wire; the incremental path (the
//     continuation passed as If-None-Match, the next continuation taken from
//     the response) is tested on a recording transport. The standalone audit
//     pump reads the feed through store.Container.ChangeFeed and keeps the
//     continuation itself;
//   - it has no TTL and ignores malformed continuation tokens.
package cosmos
