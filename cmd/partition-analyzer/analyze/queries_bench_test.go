package analyze_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/bolt/bolttest"
	"github.com/todoaudit/todo/cmd/partition-analyzer/analyze"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/repo"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
)

// The list query shapes (filters and sorts) are measured on the embedded
// store, whose charges follow the same model as the analyzer's estimates:
// the analyzer's workloads carry no tags, due dates or searchable titles,
// so it cannot estimate their selectivity. listShapesWorkload is the
// analyzer's generator at a tenth of its 1,000,000-todo run (the same todos
// per user), each todo given tags, a due date and a title from a seeded
// generator.
var listShapesWorkload = analyze.Workload{Seed: 1, Users: 10_000, Categories: 8, Todos: 100_000, UserSkew: 1.0, CategorySkew: 0.8,
	ItemBytes: 600, Span: 90 * 24 * time.Hour, Retention: todo.DefaultVersionTTL}

var (
	shapeTags   = []string{"home", "work", "urgent", "errand", "later"}
	shapeTitles = []string{"buy milk", "call the bank", "water plants", "file the report", "book a table", "pay rent", "fix the bike", "read a book"}
)

// loadShapes stores the workload's todos under scheme, in batches of one
// partition each, and returns the busiest user and a typical one (the
// median by todos).
func loadShapes(b *testing.B, scheme string) (*service.Service, string, string) {
	c := bolttest.Open(b, scheme, nil)
	sch, err := partition.New(scheme, partition.DefaultBuckets, nil)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(2, 3))
	perUser := map[string]int{}
	pending := map[string][]store.Op{}
	keys := map[string]store.PartitionKey{}
	var wg sync.WaitGroup
	flushes := make(chan func(), 64)
	for range 8 {
		wg.Go(func() {
			for f := range flushes {
				f()
			}
		})
	}
	var failed error
	var mu sync.Mutex
	flush := func(k string) {
		ops, pk := pending[k], keys[k]
		delete(pending, k)
		flushes <- func() {
			if _, err := c.Todos.Batch(context.Background(), pk, ops); err != nil {
				mu.Lock()
				failed = err
				mu.Unlock()
			}
		}
	}
	n := 0
	err = listShapesWorkload.Each(analyze.Start, func(g *analyze.GeneratedTodo) error {
		user, category := analyze.UserID(g.User), analyze.CategoryName(g.Category)
		key := sch.DerivedKey(user, category, strconv.Itoa(n))
		n++
		t := todo.Todo{ID: key.ID, Type: todo.TypeTodo, UserID: user, PartitionKey: key.Property,
			Fields:  todo.Fields{Category: category, Title: shapeTitles[r.IntN(len(shapeTitles))] + " " + strconv.Itoa(n), IsCompleted: r.IntN(3) == 0},
			Version: 1, CreatedAt: g.Created, UpdatedAt: g.Created, LastOperation: todo.OpCreate, UpdatedBy: user}
		for _, tag := range shapeTags {
			if r.IntN(4) == 0 {
				t.Tags = append(t.Tags, tag)
			}
		}
		if r.IntN(10) < 7 {
			due := g.Created.Add(time.Duration(r.IntN(60*24)) * time.Hour).Truncate(time.Second)
			t.DueDate = &due
		}
		b, _ := json.Marshal(t)
		if pad := g.Bytes - int64(len(b)); pad > 0 {
			t.Notes = strings.Repeat("n", int(pad))
		}
		op, err := repo.Create(t)
		if err != nil {
			return err
		}
		pk := sch.KeyOf(&t)
		k := pk.String()
		pending[k], keys[k] = append(pending[k], op), pk
		if len(pending[k]) == store.MaxBatchOps {
			flush(k)
		}
		perUser[user]++
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	for k := range pending {
		flush(k)
	}
	close(flushes)
	wg.Wait()
	if failed != nil {
		b.Fatal(failed)
	}
	users := make([]string, 0, len(perUser))
	for u := range perUser {
		users = append(users, u)
	}
	slices.SortFunc(users, func(a, b string) int { return perUser[b] - perUser[a] })
	b.Logf("%s: %d todos, busiest %s with %d, typical %s with %d", scheme, n, users[0], perUser[users[0]], users[len(users)/2], perUser[users[len(users)/2]])
	return service.New(sch, c.Todos, c.Audit, nil), users[0], users[len(users)/2]
}

// listShape is one list query shape.
type listShape struct {
	name  string
	admin bool
	o     service.ListOptions
}

func listShapes() []listShape {
	grocery, milk, yes := "Grocery", "MILK", false
	before := analyze.Start.Add(60 * 24 * time.Hour)
	after := analyze.Start.Add(30 * 24 * time.Hour)
	return []listShape{
		{name: "unfiltered", o: service.ListOptions{}},
		{name: "tag", o: service.ListOptions{Tags: []string{"urgent"}}},
		{name: "two tags", o: service.ListOptions{Tags: []string{"urgent", "home"}}},
		{name: "due range", o: service.ListOptions{DueAfter: &after, DueBefore: &before}},
		{name: "title text", o: service.ListOptions{Title: &milk}},
		{name: "sort dueDate", o: service.ListOptions{Sort: "dueDate"}},
		{name: "sort updatedAt desc", o: service.ListOptions{Sort: "updatedAt", Desc: true}},
		{name: "category sort title", o: service.ListOptions{Category: &grocery, Sort: "title"}},
		{name: "category tag due sort dueDate", o: service.ListOptions{Category: &grocery, Tags: []string{"urgent"}, DueAfter: &after, Sort: "dueDate"}},
		{name: "tag text open sort createdAt desc", o: service.ListOptions{Tags: []string{"home"}, Title: &milk, IsCompleted: &yes, Sort: "createdAt", Desc: true}},
		{name: "admin tag", admin: true, o: service.ListOptions{Tags: []string{"urgent"}}},
		{name: "admin category sort updatedAt", admin: true, o: service.ListOptions{Category: &grocery, Sort: "updatedAt"}},
		{name: "admin sort updatedAt", admin: true, o: service.ListOptions{Sort: "updatedAt"}},
	}
}

// BenchmarkListShapes reports what the first page (20 todos) and the
// second of each list query shape cost, in request units, under every
// scheme, for the busiest user and a typical one (the admin shapes span
// every user).
func BenchmarkListShapes(b *testing.B) {
	for _, scheme := range partition.Names {
		svc, busiest, typical := loadShapes(b, scheme)
		for _, sh := range listShapes() {
			users := []string{typical, busiest}
			if sh.admin {
				users = []string{"admin"}
			}
			for i, user := range users {
				who := []string{"typical", "busiest"}[i]
				if sh.admin {
					who = "all"
				}
				b.Run(fmt.Sprintf("%s/%s/%s", scheme, sh.name, who), func(b *testing.B) {
					ctx := service.WithUser(context.Background(), user)
					var first, second store.Cost
					for range b.N {
						first, second = pages(b, svc, ctx, sh)
					}
					b.ReportMetric(first.Charge, "RU/page1")
					b.ReportMetric(second.Charge, "RU/page2")
					b.ReportMetric(float64(first.Requests), "requests/page1")
				})
			}
		}
	}
}

// pages runs a shape's first page and, when there is one, its second,
// and returns what each cost.
func pages(b *testing.B, svc *service.Service, ctx context.Context, sh listShape) (first, second store.Cost) {
	run := func(o service.ListOptions) (service.Page, store.Cost) {
		mctx, m := store.WithMeter(ctx)
		o.PageSize = 20
		var p service.Page
		var err error
		if sh.admin {
			p, err = svc.Admin(mctx, o)
		} else {
			p, err = svc.List(mctx, o)
		}
		if err != nil {
			b.Fatal(err)
		}
		return p, m.Cost()
	}
	p, first := run(sh.o)
	if p.Continuation != "" {
		o := sh.o
		o.Continuation = p.Continuation
		_, second = run(o)
	}
	return first, second
}
