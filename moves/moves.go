// Package moves finds the moves a crash left half done. A move marks the
// old todo as moving before it creates the new one and deletes the old, so
// a todo still marked after its request ended is hidden from every list
// until someone finishes its move. The sweeper reads the todo container's
// change feed from where its previous pass stopped, so a pass costs in
// proportion to the writes since then, not to the data kept.
package moves

import (
	"context"
	"encoding/json"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// feedPage is how many changed documents a pass reads per request.
const feedPage = 1000

// Sweeper hands every todo it finds marked as moving to Finish.
type Sweeper struct {
	Todos  store.Container
	Leases store.Container // holds the sweeper's checkpoint
	// Finish completes the move the todo (as read, with its ETag) was
	// marked for; it must be idempotent, as the move may be running still.
	Finish func(ctx context.Context, t todo.Todo, etag string) error
}

// Run reads the changes since the previous pass, finishes the marked
// moves among them, and says how many it found.
func (s *Sweeper) Run(ctx context.Context) (int, error) {
	id := "moves-" + s.Todos.Spec().Name
	cont, err := store.LoadCheckpoint(ctx, s.Leases, id)
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		b, err := s.Todos.ChangeFeed(ctx, cont, feedPage)
		if err != nil {
			return n, err
		}
		if len(b.Items) == 0 || b.Continuation == cont {
			return n, nil
		}
		for _, it := range b.Items {
			var t todo.Todo
			if json.Unmarshal(it.Body, &t) != nil || t.Type != todo.TypeTodo || t.MovingTo == "" {
				continue
			}
			if err := s.Finish(ctx, t, it.ETag); err != nil {
				return n, err
			}
			n++
		}
		cont = b.Continuation
		if err := store.SaveCheckpoint(ctx, s.Leases, id, cont); err != nil {
			return n, err
		}
	}
}
