package cosmos

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// container is one container's data plane. Its client and properties are
// cached by the Store; nothing here reads container metadata.
type container struct {
	cc   *azcosmos.ContainerClient
	spec store.ContainerSpec

	feedMu    sync.Mutex
	feedRange *azcosmos.FeedRange // the whole container, read once
}

var _ store.Container = (*container)(nil)

func (c *container) Spec() store.ContainerSpec { return c.spec }

func subject(id string) string { return "item " + strconv.Quote(id) }

func itemOptions(o *store.WriteOptions) *azcosmos.ItemOptions {
	opts := &azcosmos.ItemOptions{EnableContentResponseOnWrite: true}
	if o != nil && o.IfMatch != "" {
		etag := azcore.ETag(o.IfMatch)
		opts.IfMatchEtag = &etag
	}
	return opts
}

// Read is a point read: one ReadItem.
func (c *container) Read(ctx context.Context, pk store.PartitionKey, id string) (store.Item, error) {
	store.Charge(ctx, store.Cost{Scope: store.Point})
	if err := c.spec.CheckKey(pk); err != nil {
		return store.Item{}, err
	}
	if err := todo.ValidateID(id); err != nil {
		return store.Item{}, err
	}
	resp, err := c.cc.ReadItem(ctx, partitionKey(pk), id, nil)
	if err != nil {
		return store.Item{}, mapError(err, subject(id))
	}
	return store.Item{ID: id, PartitionKey: pk, ETag: string(resp.ETag), Body: resp.Value}, nil
}

// Create is one CreateItem.
func (c *container) Create(ctx context.Context, pk store.PartitionKey, doc []byte) (store.Item, error) {
	return c.write(ctx, store.BatchCreate, pk, doc, nil)
}

// Upsert is one UpsertItem, conditional on IfMatch when it is set.
func (c *container) Upsert(ctx context.Context, pk store.PartitionKey, doc []byte, o *store.WriteOptions) (store.Item, error) {
	return c.write(ctx, store.BatchUpsert, pk, doc, o)
}

// Replace is one ReplaceItem, conditional on IfMatch when it is set.
func (c *container) Replace(ctx context.Context, pk store.PartitionKey, doc []byte, o *store.WriteOptions) (store.Item, error) {
	return c.write(ctx, store.BatchReplace, pk, doc, o)
}

func (c *container) write(ctx context.Context, kind store.OpKind, pk store.PartitionKey, doc []byte, o *store.WriteOptions) (store.Item, error) {
	store.Charge(ctx, store.Cost{Scope: store.Point})
	if err := c.spec.CheckKey(pk); err != nil {
		return store.Item{}, err
	}
	d, err := c.spec.CheckDocument(pk, doc)
	if err != nil {
		return store.Item{}, err
	}
	id := d.ID
	key, opts := partitionKey(pk), itemOptions(o)
	var resp azcosmos.ItemResponse
	switch kind {
	case store.BatchCreate:
		resp, err = c.cc.CreateItem(ctx, key, doc, opts)
	case store.BatchUpsert:
		resp, err = c.cc.UpsertItem(ctx, key, doc, opts)
	default:
		resp, err = c.cc.ReplaceItem(ctx, key, id, doc, opts)
	}
	if err != nil {
		return store.Item{}, mapError(err, subject(id))
	}
	return store.Item{ID: id, PartitionKey: pk, ETag: string(resp.ETag), Body: resp.Value}, nil
}

// Delete is one DeleteItem, conditional on IfMatch when it is set.
func (c *container) Delete(ctx context.Context, pk store.PartitionKey, id string, o *store.WriteOptions) error {
	store.Charge(ctx, store.Cost{Scope: store.Point})
	if err := c.spec.CheckKey(pk); err != nil {
		return err
	}
	if err := todo.ValidateID(id); err != nil {
		return err
	}
	opts := itemOptions(o)
	opts.EnableContentResponseOnWrite = false
	_, err := c.cc.DeleteItem(ctx, partitionKey(pk), id, opts)
	return mapError(err, subject(id))
}

// Batch is one ExecuteTransactionalBatch in the logical partition pk.
func (c *container) Batch(ctx context.Context, pk store.PartitionKey, ops []store.Op) ([]store.OpResult, error) {
	store.Charge(ctx, store.Cost{Scope: store.Partition})
	if err := c.spec.CheckKey(pk); err != nil {
		return nil, err
	}
	if len(ops) == 0 || len(ops) > store.MaxBatchOps {
		return nil, todo.Errorf(todo.Invalid, "a batch holds 1 to %d operations", store.MaxBatchOps)
	}
	b := c.cc.NewTransactionalBatch(partitionKey(pk))
	ids := make([]string, len(ops))
	size := 0
	for i, op := range ops {
		var opts *azcosmos.TransactionalBatchItemOptions
		if op.IfMatch != "" {
			etag := azcore.ETag(op.IfMatch)
			opts = &azcosmos.TransactionalBatchItemOptions{IfMatchETag: &etag}
		}
		id := op.ID
		var err error
		switch op.Kind {
		case store.BatchCreate, store.BatchUpsert, store.BatchReplace:
			var d store.Document
			d, err = c.spec.CheckDocument(pk, op.Doc)
			id = d.ID
			size += len(op.Doc)
		case store.BatchDelete, store.BatchRead:
			err = todo.ValidateID(id)
		default:
			err = todo.Errorf(todo.Invalid, "unknown batch operation kind %d", op.Kind)
		}
		if err != nil {
			return nil, &store.BatchError{Index: i, Err: err}
		}
		ids[i] = id
		switch op.Kind {
		case store.BatchCreate:
			b.CreateItem(op.Doc, opts)
		case store.BatchUpsert:
			b.UpsertItem(op.Doc, opts)
		case store.BatchReplace:
			b.ReplaceItem(jsonInner(id), op.Doc, opts)
		case store.BatchDelete:
			b.DeleteItem(jsonInner(id), opts)
		case store.BatchRead:
			b.ReadItem(jsonInner(id), opts)
		}
	}
	if size > store.MaxBatchBytes {
		return nil, todo.Errorf(todo.TooLarge, "the batch is larger than %d bytes", store.MaxBatchBytes)
	}
	resp, err := c.cc.ExecuteTransactionalBatch(ctx, b, nil)
	if err != nil {
		return nil, mapError(err, "batch in partition "+pk.String())
	}
	if err := batchFailure(resp, ids); err != nil {
		return nil, err
	}
	if len(resp.OperationResults) != len(ops) {
		return nil, todo.Wrap(todo.Internal,
			fmt.Errorf("batch of %d operations answered with %d results", len(ops), len(resp.OperationResults)), "Cosmos DB request failed")
	}
	results := make([]store.OpResult, len(ops))
	for i, r := range resp.OperationResults {
		results[i] = store.OpResult{StatusCode: int(r.StatusCode), ETag: string(r.ETag)}
		if ops[i].Kind == store.BatchRead {
			results[i].Body = r.ResourceBody
		}
	}
	return results, nil
}

// batchFailure finds the operation that failed a batch: Cosmos DB answers
// 207 (Success false) and marks every other operation 424 Failed
// Dependency. An operation status of 400 or more in a successful response
// is treated as a failure too.
func batchFailure(resp azcosmos.TransactionalBatchResponse, ids []string) error {
	failed := !resp.Success
	for _, r := range resp.OperationResults {
		if r.StatusCode >= 400 {
			failed = true
		}
	}
	if !failed {
		return nil
	}
	for i, r := range resp.OperationResults {
		status := int(r.StatusCode)
		if status >= 400 && status != http.StatusFailedDependency {
			id := ""
			if i < len(ids) {
				id = ids[i]
			}
			cause := fmt.Errorf("batch operation %d (item %q): status %d", i, id, status)
			return &store.BatchError{Index: i, Err: statusError(status, resp.RawResponse.Header, subject(id), cause)}
		}
	}
	return todo.Wrap(todo.Internal, errors.New("batch failed without a failing operation"), "Cosmos DB request failed")
}

// jsonInner escapes id for the SDK's batch operations, which write ids into
// JSON without escaping them. ValidateID has already refused backslashes and
// control characters, so only quotes change.
func jsonInner(id string) string {
	b, _ := json.Marshal(id)
	return string(b[1 : len(b)-1])
}

// Query reads one page: one request of a query pager.
func (c *container) Query(ctx context.Context, q store.Query) (store.Page, error) {
	r, err := render(c.spec, q)
	if err != nil {
		return store.Page{}, err
	}
	store.Charge(ctx, store.Cost{Scope: r.Scope})
	opts := &azcosmos.QueryOptions{PageSizeHint: int32(q.PageSize), QueryParameters: r.Params}
	if q.Continuation != "" {
		cont := q.Continuation
		opts.ContinuationToken = &cont
	}
	resp, err := c.cc.NewQueryItemsPager(r.SQL, r.Key, opts).NextPage(ctx)
	if err != nil {
		return store.Page{}, mapError(err, "query")
	}
	page := store.Page{Items: make([]store.Item, 0, len(resp.Items))}
	for _, body := range resp.Items {
		it, err := c.item(body)
		if err != nil {
			return store.Page{}, err
		}
		page.Items = append(page.Items, it)
	}
	if resp.ContinuationToken != nil {
		page.Continuation = *resp.ContinuationToken
	}
	return page, nil
}

// item builds a store.Item from a document Cosmos DB returned.
func (c *container) item(body []byte) (store.Item, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return store.Item{}, todo.Wrap(todo.Internal, err, "Cosmos DB returned a document that is not JSON")
	}
	it := store.Item{Body: body, PartitionKey: make(store.PartitionKey, len(c.spec.PartitionKeyPaths))}
	_ = json.Unmarshal(fields["id"], &it.ID)
	_ = json.Unmarshal(fields["_etag"], &it.ETag)
	for i, path := range c.spec.PartitionKeyPaths {
		raw := fields[strings.TrimPrefix(path, "/")]
		if json.Unmarshal(raw, &it.PartitionKey[i]) != nil {
			// Not a string (written by another tool): keep its JSON text.
			it.PartitionKey[i] = string(bytes.TrimSpace(raw))
		}
	}
	return it, nil
}

// fullRange returns the feed range of the whole container, reading the
// container's feed ranges once.
func (c *container) fullRange(ctx context.Context) (azcosmos.FeedRange, error) {
	c.feedMu.Lock()
	defer c.feedMu.Unlock()
	if c.feedRange != nil {
		return *c.feedRange, nil
	}
	ranges, err := c.cc.ReadFeedRanges(ctx, nil)
	if err != nil {
		return azcosmos.FeedRange{}, err
	}
	if len(ranges) == 0 {
		return azcosmos.FeedRange{}, errors.New("container has no feed ranges")
	}
	sort.Slice(ranges, func(i, j int) bool { return ranges[i].MinInclusive < ranges[j].MinInclusive })
	c.feedRange = &azcosmos.FeedRange{MinInclusive: ranges[0].MinInclusive, MaxExclusive: ranges[len(ranges)-1].MaxExclusive}
	return *c.feedRange, nil
}

// feedToken is the part of the SDK's composite change feed continuation
// that tells a real token from garbage.
type feedToken struct {
	Continuation []json.RawMessage `json:"continuation"`
}

// ChangeFeed reads one page of the change feed in latest-version mode over
// the whole container. The continuation is the SDK's own token, passed
// through: it holds the ETag of every feed range, sent back as If-None-Match.
func (c *container) ChangeFeed(ctx context.Context, continuation string, max int) (store.ChangeBatch, error) {
	store.Charge(ctx, store.Cost{Scope: store.CrossPartition})
	batch := store.ChangeBatch{Continuation: continuation}
	if max <= 0 {
		max = 100
	}
	opts := &azcosmos.ChangeFeedOptions{MaxItemCount: int32(min(max, store.MaxPageSize))}
	if continuation != "" {
		var tok feedToken
		if json.Unmarshal([]byte(continuation), &tok) != nil || len(tok.Continuation) == 0 {
			return batch, todo.Errorf(todo.Invalid, "malformed change feed continuation")
		}
		opts.Continuation = &continuation
	} else {
		full, err := c.fullRange(ctx)
		if err != nil {
			return batch, mapError(err, "change feed")
		}
		opts.FeedRange = &full
	}
	resp, err := c.cc.ReadChangeFeed(ctx, opts)
	if err != nil {
		return batch, mapError(err, "change feed")
	}
	for _, body := range resp.Items {
		it, err := c.item(body)
		if err != nil {
			return batch, err
		}
		batch.Items = append(batch.Items, it)
	}
	if resp.ContinuationToken != "" {
		batch.Continuation = resp.ContinuationToken
	}
	return batch, nil
}
