package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/app"
	"github.com/todoaudit/todo/app/apitest"
	"github.com/todoaudit/todo/auth"
	"github.com/todoaudit/todo/auth/authtest"
	"github.com/todoaudit/todo/azfunc"
	"github.com/todoaudit/todo/functions"
	"github.com/todoaudit/todo/httpapi/invocation"
	"github.com/todoaudit/todo/internal/race"
	"github.com/todoaudit/todo/store"
)

// largest is the largest todo the API accepts, as stored: notes, title and
// tags at their limits, each character "<", which the store's JSON
// escapes to six bytes (\u003c).
func largest(i int) map[string]any {
	tags := make([]string, todo.MaxTags)
	for j := range tags {
		tags[j] = strings.Repeat("<", todo.MaxTagBytes-2) + fmt.Sprintf("%02d", j)
	}
	return map[string]any{
		"category": strings.Repeat("C", todo.MaxCategoryBytes),
		"title":    strings.Repeat("<", todo.MaxTitleBytes-4) + fmt.Sprintf("%04d", i),
		"notes":    strings.Repeat("<", todo.MaxNotesBytes),
		"tags":     tags,
	}
}

// createLargest makes n of the largest todos as c, two at a time.
func createLargest(t *testing.T, c *apitest.Client, n int) {
	t.Helper()
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 2 {
				if r := c.Do("POST", "/api/todos", largest(i)); r.Status != 201 {
					t.Errorf("largest todo: %d %s", r.Status, r.Body)
				}
			}
		}()
	}
	wg.Wait()
}

// auditedWithin writes a todo as c and returns how long until its create
// is in its history; it fails the test past deadline.
func auditedWithin(t *testing.T, c *apitest.Client, deadline time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	id := apitest.Want(t, c.Do("POST", "/api/todos", map[string]any{"category": "Grocery", "title": "milk"}), 201).JSON(t)["id"].(string)
	for time.Since(start) < deadline {
		page := apitest.Want(t, c.Do("GET", "/api/todos/"+id+"/history", nil), 200).JSON(t)
		if len(page["items"].([]any)) == 1 {
			return time.Since(start)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("a small write was not audited within %s", deadline)
	return 0
}

// One user filling todos with the largest content the API accepts stalls
// nobody's audit standalone: alice's writes made while mallory writes them
// are audited as soon as the pump reaches them, the ones after within the
// usual lag, and the pump never fails a batch or logs an error.
func TestLargestTodosUnderThePump(t *testing.T) {
	logs := &lockedBuffer{}
	a := apitest.StartLogged(t, map[string]string{"DATA_DIR": t.TempDir(), "AUDIT_PUMP": "on"}, nil,
		slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn})))
	base := &apitest.Client{T: t, Base: "http://" + a.Addr()}
	mallory, alice := base.As("mallory"), base.As("alice")
	const writers, creates = 4, 4
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range creates {
				if r := mallory.Do("POST", "/api/todos", largest(w*creates+n)); r.Status != 201 {
					t.Errorf("largest todo: %d %s", r.Status, r.Body)
					return
				}
			}
		}()
	}
	var during time.Duration
	for range 3 {
		during = max(during, auditedWithin(t, alice, 30*time.Second))
	}
	wg.Wait()
	if err := a.DrainAudit(context.Background()); err != nil {
		t.Fatal(err)
	}
	var after time.Duration
	for range 3 {
		after = max(after, auditedWithin(t, alice, 30*time.Second))
	}
	t.Logf("alice's writes audited within %s while mallory wrote %d of the largest todos, within %s after", during, writers*creates, after)
	if after > time.Second {
		t.Fatalf("after mallory's writes, alice's took up to %s to be audited", after)
	}
	h := apitest.Want(t, base.Do("GET", "/api/health", nil), 200).JSON(t)
	if audit, _ := h["audit"].(map[string]any); audit["state"] != "running" {
		t.Fatalf("health after the burst: %v", h)
	}
	for _, l := range logs.lines(t) {
		t.Fatalf("the handler logged %v", l)
	}
}

// Under the host, a batch of the largest documents in the host's exact
// wire shape (maxItemsPerInvocation documents, string-encoded twice,
// chunked) is never refused at the default MAX_PAYLOAD_BYTES, so the batch
// that holds another user's write is audited on its first delivery.
func TestLargestTodosUnderTheHost(t *testing.T) {
	race.Heavy(t) // encodes and decodes megabytes of escaped JSON, one invocation at a time
	var st store.Store
	ln, port := hostSocket(t)
	a := apitest.Start(t, map[string]string{"DATA_DIR": t.TempDir(), "FUNCTIONS_CUSTOMHANDLER_PORT": port, "AUTH_MODE": "easyauth"},
		&app.Options{Listener: ln, Wrap: func(s store.Store) store.Store { st = s; return s }})
	as := func(oid string) *apitest.Client {
		return &apitest.Client{T: t, Base: "http://" + a.Addr(),
			Header: map[string]string{auth.PrincipalIDHeader: oid, auth.PrincipalHeader: authtest.Principal(oid)}}
	}
	mallory, alice := as("00000000-0000-4000-8000-00000000000a"), as("00000000-0000-4000-8000-00000000000b")
	f, err := functions.Get("AuditTrigger")
	if err != nil {
		t.Fatal(err)
	}
	in, _ := f.Trigger()
	// Each write makes two of the largest documents (the todo and its
	// version): one invocation full of them, then alice's write among
	// more of them.
	createLargest(t, mallory, in.MaxItemsPerInvocation/2)
	mine := apitest.Want(t, alice.Do("POST", "/api/todos", map[string]any{"category": "Grocery", "title": "milk"}), 201).JSON(t)["id"].(string)
	createLargest(t, mallory, in.MaxItemsPerInvocation/4)

	ctx := context.Background()
	var cs [2]store.Container
	for i, name := range []string{"todos", "audit"} {
		if cs[i], err = st.Container(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	todos, auditC := cs[0], cs[1]
	cont, invocations, largestDoc, largestBody := "", 0, 0, 0
	for {
		batch, err := todos.ChangeFeed(ctx, cont, in.MaxItemsPerInvocation)
		if err != nil {
			t.Fatal(err)
		}
		if batch.Continuation == cont {
			break
		}
		cont = batch.Continuation
		docs := make([]json.RawMessage, len(batch.Items))
		for i, it := range batch.Items {
			docs[i] = it.Body
			one, err := azfunc.EncodeDocuments(docs[i : i+1])
			if err != nil {
				t.Fatal(err)
			}
			largestDoc = max(largestDoc, len(one))
		}
		inv, err := azfunc.NewTriggerRequest(f.Name, in.Name, docs, time.Now(), "6b6e3a9a-8d0c-4c47-9d6c-0f0a3b0b8b11")
		if err != nil {
			t.Fatal(err)
		}
		body, err := json.Marshal(inv)
		if err != nil {
			t.Fatal(err)
		}
		largestBody = max(largestBody, len(body))
		req, _ := http.NewRequest(http.MethodPost, "http://"+a.Addr()+"/AuditTrigger", io.MultiReader(bytes.NewReader(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(azfunc.InvocationIDHeader, fmt.Sprintf("0d2c9a4e-5a7b-4f6e-8a59-%012d", invocations))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		out, err := azfunc.DecodeResponse(resp)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("invocation %d of %d bytes: %v", invocations, len(body), err)
		}
		invocations++
		// The output binding: one upsert per item, in parallel.
		var items []json.RawMessage
		if err := json.Unmarshal(out.Outputs["auditRecords"], &items); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for _, it := range items {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var head struct{ EntityKey string }
				if err := json.Unmarshal(it, &head); err != nil {
					t.Error(err)
					return
				}
				if _, err := auditC.Upsert(ctx, store.PartitionKey{head.EntityKey}, it, nil); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
	}
	t.Logf("%d invocations; the largest document takes %d bytes double-encoded, the largest invocation %d bytes", invocations, largestDoc, largestBody)
	if largestDoc > invocation.MaxDocumentBytes || largestDoc < invocation.MaxDocumentBytes*9/10 {
		t.Fatalf("the largest document takes %d bytes in an invocation: invocation.MaxDocumentBytes (%d) no longer describes it", largestDoc, invocation.MaxDocumentBytes)
	}
	if need, _ := invocation.MinPayloadBytes(); int64(largestBody) > need || invocations < 2 {
		t.Fatalf("%d invocations, the largest of %d bytes, against the %d bytes the limit admits", invocations, largestBody, need)
	}
	page := apitest.Want(t, alice.Do("GET", "/api/todos/"+mine+"/history", nil), 200).JSON(t)
	if len(page["items"].([]any)) != 1 {
		t.Fatalf("alice's write is not audited after one pass of the host: %v", page)
	}
}
