package analyze

import (
	"bufio"
	"context"
	"io"

	"github.com/todoaudit/todo/store"
)

// Export writes every document of a container as JSON Lines, paging
// through a cross-partition query, and returns how many it wrote. Bodies
// are written as the store holds them (the embedded store includes _etag
// and _ts). Its store calls go at low priority, behind the users'.
func Export(ctx context.Context, c store.Container, w io.Writer) (int64, error) {
	ctx = store.WithLowPriority(ctx)
	bw := bufio.NewWriterSize(w, 1<<20)
	var n int64
	q := store.Query{PageSize: store.MaxPageSize}
	for {
		page, err := c.Query(ctx, q)
		if err != nil {
			return n, err
		}
		for _, it := range page.Items {
			if _, err := bw.Write(it.Body); err != nil {
				return n, err
			}
			if err := bw.WriteByte('\n'); err != nil {
				return n, err
			}
			n++
		}
		if page.Continuation == "" {
			return n, bw.Flush()
		}
		q.Continuation = page.Continuation
	}
}
