package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/todoaudit/todo"
)

// Paged answers (lists, histories, verifications, activity views, dead
// letters) are the large ones: up to a store page of documents
// (store.MaxPageBytes) held decoded and encoded at once. maxPagesAtOnce of
// them are served at a time, so that memory stays within a small multiple
// of the largest page however many arrive together; the others wait up to
// pageWait for a turn, then get 503 with Retry-After.
const (
	maxPagesAtOnce   = 8
	pageWait         = 2 * time.Second
	pageRetryAfter   = time.Second
	pagesBusyMessage = "the handler is serving as many large answers as it can at once; try again"
)

// paged serves h in one of the turns of paged answers.
func paged(h handler) handler {
	return func(a *api, ctx context.Context, w http.ResponseWriter, r *http.Request, id string) error {
		select {
		case a.pageTurns <- struct{}{}:
		default:
			t := time.NewTimer(pageWait)
			defer t.Stop()
			select {
			case a.pageTurns <- struct{}{}:
			case <-t.C:
				return pagesBusy()
			case <-ctx.Done():
				return pagesBusy()
			}
		}
		defer func() { <-a.pageTurns }()
		return h(a, ctx, w, r, id)
	}
}

func pagesBusy() error {
	e := todo.Errorf(todo.Unavailable, pagesBusyMessage)
	e.RetryAfter = pageRetryAfter
	return e
}
