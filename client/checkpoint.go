package client

import (
	"context"
	"fmt"
	"net/http"

	"github.com/todoaudit/todo/transparency"
)

// Accepted is the log's checkpoint as this client accepted it: the signed
// note as served, its parsed body, and the witnesses of the policy that
// cosigned it, with the time each states.
type Accepted struct {
	Note       []byte
	Checkpoint transparency.Checkpoint
	Cosigners  []transparency.Cosignature
}

// LatestCheckpoint reads the log's latest checkpoint (GET
// /api/log/checkpoint) and accepts it only when the log's signature
// verifies under logKey, a signed-note verifier key, and, with a policy,
// when it carries the policy's quorum of valid cosignatures: otherwise an
// error naming the quorum that is missing (errors.Is transparency.ErrNoQuorum).
// What the server says of its own witnesses is not taken on trust: the
// cosignatures are checked here.
func LatestCheckpoint(ctx context.Context, c ClientWithResponsesInterface, logKey string, policy *transparency.Policy, reqEditors ...RequestEditorFn) (Accepted, error) {
	v, err := transparency.NewVerifier(logKey)
	if err != nil {
		return Accepted{}, fmt.Errorf("the log's key: %w", err)
	}
	res, err := c.LogCheckpointWithResponse(ctx, reqEditors...)
	if err != nil {
		return Accepted{}, err
	}
	if res.StatusCode() != http.StatusOK {
		return Accepted{}, fmt.Errorf("GET /api/log/checkpoint answered %s", res.Status())
	}
	a := Accepted{Note: res.Body}
	if a.Checkpoint, err = transparency.OpenCheckpoint(res.Body, v); err != nil {
		return a, err
	}
	if policy != nil {
		if a.Cosigners, err = policy.Check(res.Body); err != nil {
			return a, err
		}
	}
	return a, nil
}
