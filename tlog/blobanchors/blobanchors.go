// Package blobanchors anchors the transparency log's checkpoints in an
// Azure Blob container with a version-level immutability (WORM) policy,
// written through the app's identity: a blob per checkpoint, created only
// if absent, never overwritten or deleted by the handler, and by no one
// while the policy holds it.
package blobanchors

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/todoaudit/todo/tlog"
)

// Anchors is a Blob container of checkpoints.
type Anchors struct {
	c *container.Client
}

// New returns the anchors in the container at containerURL
// (https://<account>.blob.core.windows.net/<container>).
func New(containerURL string, cred azcore.TokenCredential, o *container.ClientOptions) (*Anchors, error) {
	c, err := container.NewClient(containerURL, cred, o)
	if err != nil {
		return nil, fmt.Errorf("LOG_ANCHOR_URL: %w", err)
	}
	return &Anchors{c: c}, nil
}

// prefix starts every checkpoint blob's name.
const prefix = "checkpoint-"

// blobName is the blob of the checkpoint of size n: its size subtracted
// from the largest, zero-padded, so that the listing, in name order, starts
// with the newest and one name is enough to find it.
func blobName(n int64) string { return fmt.Sprintf("%s%019d", prefix, math.MaxInt64-n) }

// maxCheckpoint bounds what is read of one blob.
const maxCheckpoint = 1 << 16

// Newest reads the checkpoint of the largest tree size anchored.
func (a *Anchors) Newest(ctx context.Context) ([]byte, error) {
	pager := a.c.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: to.Ptr(prefix), MaxResults: to.Ptr(int32(1))})
	if !pager.More() {
		return nil, nil
	}
	page, err := pager.NextPage(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing anchored checkpoints: %w", err)
	}
	for _, it := range page.Segment.BlobItems {
		if it.Name != nil {
			return a.read(ctx, *it.Name)
		}
	}
	return nil, nil
}

func (a *Anchors) read(ctx context.Context, name string) ([]byte, error) {
	resp, err := a.c.NewBlobClient(name).DownloadStream(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("reading anchored checkpoint %s: %w", name, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxCheckpoint+1))
	if err == nil && len(b) > maxCheckpoint {
		err = fmt.Errorf("anchored checkpoint %s is larger than %d bytes", name, maxCheckpoint)
	}
	return b, err
}

// Put creates the checkpoint's blob if there is none (If-None-Match: *).
func (a *Anchors) Put(ctx context.Context, size int64, note []byte) ([]byte, error) {
	name := blobName(size)
	_, err := a.c.NewBlockBlobClient(name).Upload(ctx, nopCloser{bytes.NewReader(note)}, &blockblob.UploadOptions{
		HTTPHeaders:      &blob.HTTPHeaders{BlobContentType: to.Ptr("text/plain; charset=utf-8")},
		AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: to.Ptr(azcore.ETagAny)}},
	})
	if bloberror.HasCode(err, bloberror.BlobAlreadyExists, bloberror.ConditionNotMet, bloberror.BlobImmutableDueToPolicy) {
		existing, rerr := a.read(ctx, name)
		if rerr != nil {
			return nil, rerr
		}
		return existing, tlog.ErrAnchored
	}
	if err != nil {
		return nil, fmt.Errorf("anchoring checkpoint %d: %w", size, err)
	}
	return nil, nil
}

type nopCloser struct{ io.ReadSeeker }

func (nopCloser) Close() error { return nil }

var _ tlog.Anchors = (*Anchors)(nil)
