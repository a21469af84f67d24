package analyze

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/todoaudit/todo"
)

// Workload describes a synthetic workload in terms a user knows. The same
// parameters and seed always give the same workload.
type Workload struct {
	Seed uint64 `json:"seed"`
	// Users own the todos; Categories are the categories they use.
	Users      int   `json:"users"`
	Categories int   `json:"categories"`
	Todos      int64 `json:"todos"`
	// UserSkew is the Zipf exponent of todos per user: 0 gives every user
	// the same expected number, 1 gives the k-th busiest user 1/k of the
	// busiest one's.
	UserSkew float64 `json:"userSkew"`
	// HotUserShare gives one user ("user-000000") this share of all todos
	// on top of the skew, 0 for none: a dominant tenant.
	HotUserShare float64 `json:"hotUserShare"`
	// CategorySkew is the Zipf exponent of the categories' popularity.
	CategorySkew float64 `json:"categorySkew"`
	// UpdatesPerTodo is the mean number of updates of a todo after its
	// create (geometrically distributed).
	UpdatesPerTodo float64 `json:"updatesPerTodo"`
	// ItemBytes is the mean stored size of a todo (uniform in ±50%).
	ItemBytes int64 `json:"itemBytes"`
	// Span is the time over which the todos are created; updates follow
	// their create up to its end.
	Span time.Duration `json:"span"`
	// Retention is how long version documents live (VERSION_TTL_SECONDS).
	Retention time.Duration `json:"retention"`
}

// DefaultWorkload is a modest multi-user workload.
func DefaultWorkload() Workload {
	return Workload{Seed: 1, Users: 1000, Categories: 8, Todos: 100_000, UserSkew: 1.0, CategorySkew: 0.8,
		UpdatesPerTodo: 3, ItemBytes: 600, Span: 90 * 24 * time.Hour, Retention: todo.DefaultVersionTTL}
}

// Check validates the parameters.
func (w Workload) Check() error {
	switch {
	case w.Users < 1 || w.Users > 10_000_000:
		return fmt.Errorf("users must be 1 to 10,000,000, not %d", w.Users)
	case w.Categories < 1 || w.Categories > 10_000:
		return fmt.Errorf("categories must be 1 to 10,000, not %d", w.Categories)
	case w.Todos < 0:
		return fmt.Errorf("todos must not be negative")
	case w.UserSkew < 0 || w.CategorySkew < 0:
		return fmt.Errorf("skews must not be negative")
	case w.HotUserShare < 0 || w.HotUserShare > 1:
		return fmt.Errorf("hot user share must be between 0 and 1")
	case w.UpdatesPerTodo < 0:
		return fmt.Errorf("updates per todo must not be negative")
	case w.ItemBytes < 100 || w.ItemBytes > 2_000_000:
		return fmt.Errorf("item size must be 100 bytes to 2 MB, not %d", w.ItemBytes)
	case w.Span <= 0 || w.Retention < 0:
		return fmt.Errorf("span must be positive and retention not negative")
	}
	return nil
}

// UserID names the i-th user; user 0 is the busiest.
func UserID(i int) string { return fmt.Sprintf("user-%06d", i) }

var categoryNames = []string{"Grocery", "Household", "Work", "Personal", "Errands", "Health", "Finance",
	"Travel", "Garden", "Books", "Car", "Kids", "Pets", "Music", "Sport", "Gifts"}

// CategoryName names the i-th category; category 0 is the most popular.
func CategoryName(i int) string {
	if i < len(categoryNames) {
		return categoryNames[i]
	}
	return fmt.Sprintf("Category%d", i)
}

// zipf samples 0..n-1 with weight 1/(k+1)^s, any s >= 0 (the standard
// library's Zipf needs s > 1).
type zipf struct{ cdf []float64 }

func newZipf(n int, s float64) zipf {
	cdf := make([]float64, n)
	sum := 0.0
	for k := range cdf {
		sum += math.Pow(float64(k+1), -s)
		cdf[k] = sum
	}
	for k := range cdf {
		cdf[k] /= sum
	}
	return zipf{cdf}
}

func (z zipf) sample(r *rand.Rand) int {
	u := r.Float64()
	k := sort.SearchFloat64s(z.cdf, u)
	if k >= len(z.cdf) {
		k = len(z.cdf) - 1
	}
	return k
}

// GeneratedTodo is one todo of a generated workload with its history.
type GeneratedTodo struct {
	User, Category int
	Bytes          int64
	Created        time.Time
	// Updates are the times of its updates, oldest first.
	Updates []time.Time
}

// Each generates the workload's todos in creation order. The slice of
// update times is reused between calls.
func (w Workload) Each(start time.Time, fn func(*GeneratedTodo) error) error {
	if err := w.Check(); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(w.Seed, 0x7061727469746e))
	users, cats := newZipf(w.Users, w.UserSkew), newZipf(w.Categories, w.CategorySkew)
	p := 1 / (1 + w.UpdatesPerTodo)
	end := start.Add(w.Span)
	var g GeneratedTodo
	for i := range w.Todos {
		g.User = users.sample(r)
		if w.HotUserShare > 0 && r.Float64() < w.HotUserShare {
			g.User = 0
		}
		g.Category = cats.sample(r)
		g.Bytes = int64(float64(w.ItemBytes) * (0.5 + r.Float64()))
		g.Created = start.Add(time.Duration((float64(i) + 0.5) / float64(w.Todos) * float64(w.Span)))
		n := 0
		if p < 1 {
			n = int(math.Log(1-r.Float64()) / math.Log(1-p))
		}
		g.Updates = g.Updates[:0]
		left := end.Sub(g.Created)
		for range n {
			g.Updates = append(g.Updates, g.Created.Add(time.Duration(r.Float64()*float64(left))))
		}
		sort.Slice(g.Updates, func(a, b int) bool { return g.Updates[a].Before(g.Updates[b]) })
		if err := fn(&g); err != nil {
			return err
		}
	}
	return nil
}

// Start is the fixed start of generated workloads, so that runs compare.
var Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Generate streams the workload as todo records, their retained version
// documents modelled in Versions (the writes within Retention of the end of
// the span) and the times of their writes in Times, which the record reuses
// between calls.
func (w Workload) Generate(emit func(*Record)) error {
	end := Start.Add(w.Span)
	cutoff := end.Add(-w.Retention)
	users := make([]string, w.Users)
	for i := range users {
		users[i] = UserID(i)
	}
	cats := make([]string, w.Categories)
	for i := range cats {
		cats[i] = CategoryName(i)
	}
	var rec Record
	var times []time.Time
	return w.Each(Start, func(g *GeneratedTodo) error {
		times = append(append(times[:0], g.Created), g.Updates...)
		kept := int64(0)
		if !g.Created.Before(cutoff) {
			kept++
		}
		for _, u := range g.Updates {
			if !u.Before(cutoff) {
				kept++
			}
		}
		rec = Record{Type: todo.TypeTodo, UserID: users[g.User], Category: cats[g.Category], Bytes: g.Bytes,
			Writes: 1 + int64(len(g.Updates)), VersionBytes: g.Bytes + versionOverhead, Versions: kept, Times: times}
		emit(&rec)
		return nil
	})
}
