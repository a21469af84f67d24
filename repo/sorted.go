package repo

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// sortedItem is a candidate of a sorted page: the entity and what it is
// sorted by.
type sortedItem[T any] struct {
	doc   Doc[T]
	value json.RawMessage // nil: undefined
	id    string
	pk    store.PartitionKey
}

// querySorted returns one page of the entities of every partition of s in
// s.Sort's order, ties broken by id, then by partition key (an id is
// unique in its partition only), paging by position (keyset): the token
// is the sort value, id and partition key of the last entity returned,
// and each partition's query starts after it, so a page is stable however
// the partitions are split and whatever was written since. A full
// partition key is read in order from its composite index, a page and one
// more; a prefix or the whole container cannot be read in order through
// the gateway, so every match after the position is read and the best
// kept. Across the whole container, where two partitions may hold one id,
// the store's seek (value and id) passes over the entities tied with the
// position in later partitions: they are read by value and id (ties).
func (r *Repository[T]) querySorted(ctx context.Context, s Spec) (Page[T], error) {
	var page Page[T]
	fp := fingerprint(s)
	tok, err := decodeToken(s.Continuation, fp, 1)
	if err != nil {
		return page, err
	}
	var after *store.Seek
	if tok.After != nil {
		after = &store.Seek{Order: *s.Sort, Value: tok.After.Value, ID: tok.After.ID}
	}
	want := s.PageSize + 1 // one more tells whether another page follows
	paths := len(r.c.Spec().PartitionKeyPaths)
	var best []sortedItem[T]
	for _, pk := range s.Partitions {
		// An unordered scan reads in the largest pages, for the fewest
		// round trips.
		q := store.Query{PartitionKey: pk, Filters: s.Filters, After: after, PageSize: store.MaxPageSize}
		ordered := len(pk) == paths
		if ordered {
			q.OrderBy, q.PageSize = store.TieBroken(*s.Sort), min(want, store.MaxPageSize)
		}
		if len(pk) == 0 && tok.After != nil && tok.After.PK != nil {
			tied, err := r.ties(ctx, s, *tok.After)
			if err != nil {
				return page, err
			}
			best = append(best, tied...)
		}
		for got := 0; ; {
			p, err := r.c.Query(ctx, q)
			if err != nil {
				return page, err
			}
			for _, it := range p.Items {
				c, err := r.candidate(it, s.Sort.Field)
				if err != nil {
					return page, err
				}
				best = append(best, c)
			}
			got += len(p.Items)
			if !ordered {
				best = r.keep(best, *s.Sort, want)
			}
			if p.Continuation == "" || ordered && got >= want {
				break
			}
			q.Continuation = p.Continuation
		}
	}
	best = r.keep(best, *s.Sort, want)
	if len(best) > s.PageSize {
		best = best[:s.PageSize]
		last := best[len(best)-1]
		page.Continuation = encodeToken(token{Query: fp, After: &position{Value: last.value, ID: last.id, PK: last.pk}})
	}
	for _, c := range best {
		page.Items = append(page.Items, c.doc)
	}
	if len(s.Partitions) > 1 {
		store.Charge(ctx, store.Cost{Scope: store.Fanout(len(s.Partitions))})
	}
	return page, nil
}

// keep sorts candidates in order and keeps the first n.
func (*Repository[T]) keep(c []sortedItem[T], o store.Order, n int) []sortedItem[T] {
	slices.SortFunc(c, func(a, b sortedItem[T]) int { return compareSorted(o, a.value, a.id, a.pk, b.value, b.id, b.pk) })
	return c[:min(len(c), n)]
}

// compareSorted is o's order of two entities, ties of value and id broken
// by partition key in o's direction.
func compareSorted(o store.Order, av json.RawMessage, aid string, apk store.PartitionKey, bv json.RawMessage, bid string, bpk store.PartitionKey) int {
	if d := o.Compare(av, aid, bv, bid); d != 0 {
		return d
	}
	if o.Desc {
		return slices.Compare(bpk, apk)
	}
	return slices.Compare(apk, bpk)
}

// ties returns the entities of the whole container that hold the value and
// id of the position at, in partitions after its own.
func (r *Repository[T]) ties(ctx context.Context, s Spec, at position) ([]sortedItem[T], error) {
	same := store.Filter{Field: s.Sort.Field, Op: store.NotDefined}
	if at.Value != nil {
		same.Op = store.Eq
		if err := json.Unmarshal(at.Value, &same.Value); err != nil {
			return nil, badToken()
		}
	}
	q := store.Query{Filters: append(slices.Clip(s.Filters), same, store.Filter{Field: "id", Op: store.Eq, Value: at.ID}), PageSize: store.MaxPageSize}
	var out []sortedItem[T]
	for {
		p, err := r.c.Query(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, it := range p.Items {
			c, err := r.candidate(it, s.Sort.Field)
			if err != nil {
				return nil, err
			}
			if compareSorted(*s.Sort, c.value, c.id, c.pk, at.Value, at.ID, at.PK) > 0 {
				out = append(out, c)
			}
		}
		if p.Continuation == "" {
			return out, nil
		}
		q.Continuation = p.Continuation
	}
}

// candidate decodes a stored item with its value of the sort property.
func (r *Repository[T]) candidate(it store.Item, field string) (sortedItem[T], error) {
	c := sortedItem[T]{id: it.ID, pk: it.PartitionKey}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(it.Body, &fields); err != nil {
		return c, todo.Wrap(todo.Internal, err, "stored document does not decode")
	}
	c.value = fields[field]
	return c, r.decode(it, &c.doc)
}
