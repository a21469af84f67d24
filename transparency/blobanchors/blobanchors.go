// Package blobanchors anchors the transparency log's checkpoints in an
// Azure Blob container with a version-level immutability (WORM) policy,
// written through the app's identity: a blob per checkpoint, created only
// if absent, never overwritten or deleted by the handler, and by no one
// while the policy holds it.
//
// It makes the three Blob REST calls it needs (list one name, get a blob,
// put a blob if absent) through an azcore pipeline, which brings the
// token, retries and telemetry the Azure SDK's clients have: azblob's
// container client would link an Apache Arrow reader, for a listing
// format this package never asks for, into every build of the handler.
package blobanchors

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"

	"github.com/todoaudit/todo/transparency"
)

// Anchors is a Blob container of checkpoints.
type Anchors struct {
	container string // the container's URL, without a trailing slash
	pl        runtime.Pipeline
}

const (
	// scope is the token audience of Azure Storage.
	scope = "https://storage.azure.com/.default"
	// apiVersion is the Blob REST version every request states: one that
	// has version-level immutability and answers its errors by code.
	apiVersion = "2023-11-03"
)

// New returns the anchors in the container at containerURL
// (https://<account>.blob.core.windows.net/<container>), authorized by
// cred's tokens. o may be nil.
func New(containerURL string, cred azcore.TokenCredential, o *policy.ClientOptions) (*Anchors, error) {
	u, err := url.Parse(containerURL)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || u.RawQuery != "" {
		return nil, fmt.Errorf("LOG_ANCHOR_URL: %q is not a container URL (https://<account>.blob.core.windows.net/<container>)", containerURL)
	}
	name := strings.Trim(u.Path, "/")
	if name == "" || strings.Contains(name, "/") {
		return nil, fmt.Errorf("LOG_ANCHOR_URL: %q names no container (https://<account>.blob.core.windows.net/<container>)", containerURL)
	}
	if o == nil {
		o = &policy.ClientOptions{}
	}
	auth := runtime.NewBearerTokenPolicy(cred, []string{scope}, nil)
	pl := runtime.NewPipeline("blobanchors", "v1.0.0", runtime.PipelineOptions{PerRetry: []policy.Policy{auth}}, o)
	return &Anchors{container: strings.TrimSuffix(containerURL, "/"), pl: pl}, nil
}

// prefix starts every checkpoint blob's name.
const prefix = "checkpoint-"

// blobName is the blob of the checkpoint of size n: its size subtracted
// from the largest, zero-padded, so that the listing, in name order, starts
// with the newest and one name is enough to find it.
func blobName(n int64) string { return fmt.Sprintf("%s%019d", prefix, math.MaxInt64-n) }

// maxCheckpoint bounds what is read of one blob.
const maxCheckpoint = 1 << 16

// maxListing bounds what is read of a listing of one name.
const maxListing = 1 << 16

// listing is the part of a List Blobs answer read here.
type listing struct {
	Names []string `xml:"Blobs>Blob>Name"`
}

// Newest reads the checkpoint of the largest tree size anchored.
func (a *Anchors) Newest(ctx context.Context) ([]byte, error) {
	q := url.Values{"restype": {"container"}, "comp": {"list"}, "prefix": {prefix}, "maxresults": {"1"}}
	resp, err := a.do(ctx, http.MethodGet, a.container+"?"+q.Encode(), nil, nil)
	if err != nil {
		return nil, fmt.Errorf("listing anchored checkpoints: %w", err)
	}
	defer resp.Body.Close()
	if !runtime.HasStatusCode(resp, http.StatusOK) {
		return nil, fmt.Errorf("listing anchored checkpoints: %w", runtime.NewResponseError(resp))
	}
	var l listing
	if err := xml.NewDecoder(io.LimitReader(resp.Body, maxListing)).Decode(&l); err != nil {
		return nil, fmt.Errorf("listing anchored checkpoints: %w", err)
	}
	for _, name := range l.Names {
		if strings.HasPrefix(name, prefix) {
			return a.read(ctx, name)
		}
	}
	return nil, nil
}

func (a *Anchors) read(ctx context.Context, name string) ([]byte, error) {
	resp, err := a.do(ctx, http.MethodGet, a.blobURL(name), nil, nil)
	if err != nil {
		return nil, fmt.Errorf("reading anchored checkpoint %s: %w", name, err)
	}
	defer resp.Body.Close()
	if !runtime.HasStatusCode(resp, http.StatusOK) {
		return nil, fmt.Errorf("reading anchored checkpoint %s: %w", name, runtime.NewResponseError(resp))
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxCheckpoint+1))
	if err == nil && len(b) > maxCheckpoint {
		err = fmt.Errorf("anchored checkpoint %s is larger than %d bytes", name, maxCheckpoint)
	}
	return b, err
}

// Put creates the checkpoint's blob if there is none (If-None-Match: *).
func (a *Anchors) Put(ctx context.Context, size int64, note []byte) ([]byte, error) {
	name := blobName(size)
	h := http.Header{"x-ms-blob-type": {"BlockBlob"}, "If-None-Match": {"*"}}
	resp, err := a.do(ctx, http.MethodPut, a.blobURL(name), h, note)
	if err != nil {
		return nil, fmt.Errorf("anchoring checkpoint %d: %w", size, err)
	}
	defer resp.Body.Close()
	if runtime.HasStatusCode(resp, http.StatusCreated) {
		return nil, nil
	}
	err = runtime.NewResponseError(resp)
	var re *azcore.ResponseError
	if errors.As(err, &re) && anchoredAlready[re.ErrorCode] {
		existing, rerr := a.read(ctx, name)
		if rerr != nil {
			return nil, rerr
		}
		return existing, transparency.ErrAnchored
	}
	return nil, fmt.Errorf("anchoring checkpoint %d: %w", size, err)
}

// anchoredAlready are the Blob error codes of a put that finds the blob
// there: created before (If-None-Match: * not met), or held by the
// immutability policy.
var anchoredAlready = map[string]bool{"BlobAlreadyExists": true, "ConditionNotMet": true, "BlobImmutableDueToPolicy": true}

func (a *Anchors) blobURL(name string) string { return a.container + "/" + url.PathEscape(name) }

// do sends one Blob request, its body (if any) as UTF-8 text, and leaves
// the answer's body to the caller to read, within its bound.
func (a *Anchors) do(ctx context.Context, method, u string, h http.Header, body []byte) (*http.Response, error) {
	req, err := runtime.NewRequest(ctx, method, u)
	if err != nil {
		return nil, err
	}
	runtime.SkipBodyDownload(req)
	for k, vs := range h {
		for _, v := range vs {
			req.Raw().Header.Add(k, v)
		}
	}
	req.Raw().Header.Set("x-ms-version", apiVersion)
	if body != nil {
		if err := req.SetBody(streaming.NopCloser(bytes.NewReader(body)), "text/plain; charset=utf-8"); err != nil {
			return nil, err
		}
	}
	return a.pl.Do(req)
}

var _ transparency.Anchors = (*Anchors)(nil)
