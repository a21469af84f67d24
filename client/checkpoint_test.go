package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"

	"github.com/todoaudit/todo/client"
	"github.com/todoaudit/todo/transparency"
)

// A checkpoint is accepted only under the log's key and, with a policy,
// with the policy's quorum of valid cosignatures, whatever the server says.
func TestLatestCheckpoint(t *testing.T) {
	const origin = "todo.test/log"
	logSkey, logVkey, err := note.GenerateKey(nil, origin)
	if err != nil {
		t.Fatal(err)
	}
	logSigner, err := note.NewSigner(logSkey)
	if err != nil {
		t.Fatal(err)
	}
	var witnesses []note.Signer
	policy := "log " + logVkey + "\n"
	for _, name := range []string{"w1", "w2", "w3"} {
		skey, vkey, err := note.GenerateKey(nil, "witness.test/"+name)
		if err != nil {
			t.Fatal(err)
		}
		s, err := fnote.NewSignerForCosignatureV1(skey)
		if err != nil {
			t.Fatal(err)
		}
		cvkey, err := fnote.VKeyToCosignatureV1(vkey)
		if err != nil {
			t.Fatal(err)
		}
		witnesses = append(witnesses, s)
		policy += "witness " + name + " " + cvkey + " https://" + name + ".example/\n"
	}
	p, err := transparency.ParsePolicy([]byte(policy + "group two-of-three 2 w1 w2 w3\nquorum two-of-three\n"))
	if err != nil {
		t.Fatal(err)
	}
	body := origin + "\n3\nEcDSJUhmhZDgYIfvcdtBnq3qI1hRSs6gub20UX47jVA=\n"
	serve := func(signers ...note.Signer) *client.ClientWithResponses {
		msg, err := note.Sign(&note.Note{Text: body}, signers...)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/api/log/checkpoint" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = w.Write(msg)
		}))
		t.Cleanup(srv.Close)
		c, err := client.NewClientWithResponses(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ctx := context.Background()

	a, err := client.LatestCheckpoint(ctx, serve(logSigner, witnesses[0], witnesses[2]), logVkey, p)
	if err != nil {
		t.Fatalf("two of three cosignatures: %v", err)
	}
	if a.Checkpoint.Size != 3 || len(a.Cosigners) != 2 || a.Cosigners[0].Witness != "w1" || a.Cosigners[1].Witness != "w3" {
		t.Errorf("accepted %+v, want size 3 cosigned by w1 and w3", a)
	}

	_, err = client.LatestCheckpoint(ctx, serve(logSigner, witnesses[1]), logVkey, p)
	if !errors.Is(err, transparency.ErrNoQuorum) || !strings.Contains(err.Error(), "only w2") {
		t.Errorf("one of three cosignatures: %v, want the missing quorum named", err)
	}
	if _, err := client.LatestCheckpoint(ctx, serve(logSigner, witnesses[1]), logVkey, nil); err != nil {
		t.Errorf("without a policy, the log's signature is enough: %v", err)
	}

	_, otherVkey, err := note.GenerateKey(nil, origin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.LatestCheckpoint(ctx, serve(logSigner, witnesses[0], witnesses[1]), otherVkey, p); err == nil {
		t.Error("a checkpoint signed by another log key was accepted")
	}
}
