package analyze

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/partition"
)

// WriteJSONL writes the workload as the todo container of the given scheme
// would hold it at the end of its span: each todo at its last version (its
// notes padded to the item size), its version documents still within the
// retention, and under synthetic the users' sequence documents.
func (w Workload) WriteJSONL(out io.Writer, scheme string, buckets int) error {
	if _, err := partition.Paths(scheme); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(out, 1<<20)
	cutoff := Start.Add(w.Span).Add(-w.Retention)
	ttl := int(w.Retention.Seconds())
	line := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b = append(b, '\n')
		_, err = bw.Write(b)
		return err
	}
	seq := map[string]int64{}
	err := w.EachVersion(scheme, buckets, func(t *todo.Todo, last bool) error {
		if !t.UpdatedAt.Before(cutoff) {
			if err := line(todo.NewVersion(*t, "", ttl)); err != nil {
				return err
			}
		}
		if !last {
			return nil
		}
		if scheme == partition.Synthetic {
			seq[t.UserID]++
		}
		return line(t)
	})
	if err != nil {
		return err
	}
	if scheme == partition.Synthetic {
		for i := range w.Users {
			u := UserID(i)
			if n := seq[u]; n > 0 {
				doc := map[string]any{"id": "sequence", "type": todo.TypeSequence, "userId": u,
					"partitionKey": partition.Bucket(u, 0), "sequence": n}
				if err := line(doc); err != nil {
					return err
				}
			}
		}
	}
	return bw.Flush()
}

// EachVersion generates the workload's todos as the service stores them
// under scheme: fn is called for every version of each todo, oldest first,
// with the todo document at that version (id, notes padded to the item
// size, version, operation and time set), last set on its current one.
// Between the calls of one todo t is the same value, changed only by the
// next version's fields, so a caller may seal it version by version.
func (w Workload) EachVersion(scheme string, buckets int, fn func(t *todo.Todo, last bool) error) error {
	ids := rand.New(rand.NewPCG(w.Seed, 0x6964))
	seq := map[int]int64{}
	return w.Each(Start, func(g *GeneratedTodo) error {
		user := UserID(g.User)
		t := todo.Todo{Type: todo.TypeTodo, UserID: user, Fields: todo.Fields{Category: CategoryName(g.Category),
			Title: "todo " + strconv.Itoa(int(ids.Uint32()))}, CreatedAt: g.Created, UpdatedAt: g.Created, UpdatedBy: user}
		u := fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", ids.Uint32(), ids.Uint32()&0xffff, ids.Uint32()&0xfff, ids.Uint32()&0xfff, ids.Uint64()&0xffffffffffff)
		head := t.Category
		if scheme == partition.Synthetic {
			n := int(seq[g.User] % int64(buckets))
			seq[g.User]++
			head, t.PartitionKey = strconv.Itoa(n), partition.Bucket(user, n)
		}
		t.ID = head + ":" + u
		// Pad the notes so the document is about the item size.
		b, _ := json.Marshal(t)
		if pad := g.Bytes - int64(len(b)) - int64(len(`,"notes":""`)); pad > 0 {
			t.Notes = strings.Repeat("n", int(pad))
		}
		times := append([]timeOp{{g.Created, todo.OpCreate}}, timeOps(g)...)
		for i, at := range times {
			t.Version, t.UpdatedAt, t.LastOperation = int64(i+1), at.at, at.op
			if err := fn(&t, i == len(times)-1); err != nil {
				return err
			}
		}
		return nil
	})
}

type timeOp struct {
	at time.Time
	op todo.Operation
}

func timeOps(g *GeneratedTodo) []timeOp {
	out := make([]timeOp, len(g.Updates))
	for i, u := range g.Updates {
		out[i] = timeOp{u, todo.OpUpdate}
	}
	return out
}
