package client_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/todoaudit/todo/app"
	"github.com/todoaudit/todo/client"
	"github.com/todoaudit/todo/config"
)

// The flow of the README's "Try it" through the generated client, against
// the whole handler running in-process on the embedded store.
func Example() {
	ctx := context.Background()
	handler, stop := startHandler()
	defer stop()

	api := aliceClient(handler)

	created := must(api.CreateTodoWithResponse(ctx, nil, client.TodoInput{Category: "Grocery", Title: "Get more milk"}))
	id, etag := created.JSON201.Id, *created.Headers201.ETag
	fmt.Println("create:", created.StatusCode(), *created.Headers201.Location == "/api/todos/"+id)

	got := must(api.GetTodoWithResponse(ctx, id, nil))
	fmt.Println("get:", got.StatusCode(), got.JSON200.Title, *got.Headers200.XQueryScope)

	// Update only if nobody changed it since it was read.
	done := true
	updated := must(api.PutTodoWithResponse(ctx, id, &client.PutTodoParams{IfMatch: &etag},
		client.TodoInput{Category: "Grocery", Title: "Get oat milk", IsCompleted: &done}))
	fmt.Println("update:", updated.StatusCode(), updated.JSON200.Title, "version", updated.JSON200.Version)

	// The same ETag is stale now: nothing changes.
	stale := must(api.PutTodoWithResponse(ctx, id, &client.PutTodoParams{IfMatch: &etag},
		client.TodoInput{Category: "Grocery", Title: "Get soy milk"}))
	fmt.Println("stale update:", stale.StatusCode(), stale.ApplicationproblemJSON412.Type)

	category, size := "Grocery", 10
	page := must(api.ListTodosWithResponse(ctx, &client.ListTodosParams{Category: &category, PageSize: &size}))
	fmt.Println("list:", page.StatusCode(), len(page.JSON200.Items), "todo,", *page.Headers200.XQueryScope)

	// Every version, oldest first, once the audit has caught up.
	if err := handler.DrainAudit(ctx); err != nil {
		panic(err)
	}
	history := must(api.TodoHistoryWithResponse(ctx, id, nil))
	fmt.Println("history:", history.StatusCode(), len(history.JSON200.Items), "versions")

	verified := must(api.VerifyHistoryWithResponse(ctx, id, nil))
	fmt.Println("verify:", verified.StatusCode(), verified.JSON200.Verified, *verified.JSON200.Versions, "versions")

	rolledBack := must(api.RollbackTodoWithResponse(ctx, id, nil, client.RollbackInput{Version: 1}))
	fmt.Println("rollback:", rolledBack.StatusCode(), rolledBack.JSON200.Title, "version", rolledBack.JSON200.Version)

	deleted := must(api.DeleteTodoWithResponse(ctx, id, nil))
	fmt.Println("delete:", deleted.StatusCode())
	// Output:
	// create: 201 true
	// get: 200 Get more milk point
	// update: 200 Get oat milk version 2
	// stale update: 412 urn:todoaudit:problem:precondition-failed
	// list: 200 1 todo, partition
	// history: 200 2 versions
	// verify: 200 true 2 versions
	// rollback: 200 Get more milk version 3
	// delete: 204
}

// A typed merge patch removes a field by sending null, and leaves the
// members it does not set as they are.
func Example_mergePatchRemovesAField() {
	ctx := context.Background()
	handler, stop := startHandler()
	defer stop()
	api := aliceClient(handler)
	notes := "two litres"
	created := must(api.CreateTodoWithResponse(ctx, nil, client.TodoInput{Category: "Grocery", Title: "Get milk", Notes: &notes}))
	patched := must(api.PatchTodoWithApplicationMergePatchPlusJSONBodyWithResponse(ctx, created.JSON201.Id, nil,
		client.TodoPatch{Notes: nullable.NewNullNullable[string]()}))
	fmt.Println("patch:", patched.StatusCode(), patched.JSON200.Notes == nil, patched.JSON200.Title)
	// Output:
	// patch: 200 true Get milk
}

// aliceClient is a client of the handler that calls as alice. Dev mode
// names the caller with X-User-Id; under entra, send
// "Authorization: Bearer <token>" the same way.
func aliceClient(handler *app.App) *client.ClientWithResponses {
	return must(client.NewClientWithResponses("http://"+handler.Addr(),
		client.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("X-User-Id", "alice")
			return nil
		})))
}

// startHandler runs the handler standalone on a fresh embedded store and
// a free loopback port; stop shuts it down and removes the store.
func startHandler() (a *app.App, stop func()) {
	dir := must(os.MkdirTemp("", "client-example"))
	settings := map[string]string{"LISTEN_ADDR": "127.0.0.1:0", "DATA_DIR": dir, "LOG_LEVEL": "error"}
	cfg := must(config.Load(func(k string) (string, bool) { v, ok := settings[k]; return v, ok }))
	a = must(app.Start(cfg, slog.New(slog.DiscardHandler), nil))
	if err := a.Wait(); err != nil {
		panic(err)
	}
	return a, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.Close(ctx)
		_ = os.RemoveAll(dir)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
