package httpapi

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/service"
)

// listOptions reads the list and page parameters of the query string,
// which the router has checked against the route's parameters.
func listOptions(r *http.Request) (service.ListOptions, error) {
	var o service.ListOptions
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return o, todo.Errorf(todo.Invalid, "query string is not validly encoded")
	}
	if vs, ok := q["category"]; ok {
		c := vs[0]
		if err := todo.ValidateCategory(c); err != nil {
			return o, err
		}
		o.Category = &c
	}
	if vs, ok := q["isCompleted"]; ok {
		b, err := strconv.ParseBool(vs[0])
		if err != nil || (vs[0] != "true" && vs[0] != "false") {
			return o, todo.Errorf(todo.Invalid, "isCompleted must be true or false")
		}
		o.IsCompleted = &b
	}
	if err := listFilters(q, &o); err != nil {
		return o, err
	}
	if vs, ok := q["pageSize"]; ok {
		n, err := strconv.Atoi(vs[0])
		if err != nil || n < 1 || n > service.MaxPageSize {
			return o, todo.Errorf(todo.Invalid, "pageSize must be a whole number from 1 to %d", service.MaxPageSize)
		}
		o.PageSize = n
	}
	if vs, ok := q["continuation"]; ok {
		if vs[0] == "" {
			return o, todo.Errorf(todo.Invalid, "continuation is empty")
		}
		o.Continuation = vs[0]
	}
	return o, nil
}

// sortOrders are the values of the order parameter, each with whether it
// sorts in descending order.
var sortOrders = map[string]bool{"asc": false, "desc": true}

// listFilters reads the list parameters beyond category and isCompleted:
// tag (repeatable; the Functions host joins repeated values with commas,
// so a comma separates tags too), dueBefore and dueAfter (RFC 3339 times
// or dates), q (title text), sort and order.
func listFilters(q url.Values, o *service.ListOptions) error {
	for _, v := range q["tag"] {
		for tag := range strings.SplitSeq(v, ",") {
			if tag == "" {
				return todo.Errorf(todo.Invalid, "tag is empty")
			}
			o.Tags = append(o.Tags, tag)
		}
	}
	for name, dst := range map[string]**time.Time{"dueBefore": &o.DueBefore, "dueAfter": &o.DueAfter} {
		if vs, ok := q[name]; ok {
			t, err := parseDue(vs[0])
			if err != nil {
				return todo.Errorf(todo.Invalid, "%s must be %s", name, timeForms)
			}
			*dst = &t
		}
	}
	if vs, ok := q["q"]; ok {
		o.Title = &vs[0]
	}
	if vs, ok := q["sort"]; ok {
		if vs[0] == "" {
			return todo.Errorf(todo.Invalid, "sort is empty")
		}
		o.Sort = vs[0]
	}
	if vs, ok := q["order"]; ok {
		desc, ok := sortOrders[vs[0]]
		if !ok {
			return todo.Errorf(todo.Invalid, "order must be one of %s", strings.Join(slices.Sorted(maps.Keys(sortOrders)), ", "))
		}
		o.Desc = desc
		if o.Sort == "" {
			return todo.Errorf(todo.Invalid, "order needs sort")
		}
	}
	return nil
}

// parseDue reads an RFC 3339 time, or a full date (midnight UTC).
func parseDue(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Parse(time.DateOnly, s)
}

func (a *api) list(ctx context.Context, w http.ResponseWriter, r *http.Request, _ string) error {
	o, err := listOptions(r)
	if err != nil {
		return err
	}
	p, err := a.Service.List(ctx, o)
	if err == nil {
		writePage(w, p)
	}
	return err
}

func (a *api) admin(ctx context.Context, w http.ResponseWriter, r *http.Request, _ string) error {
	o, err := listOptions(r)
	if err != nil {
		return err
	}
	p, err := a.Service.Admin(ctx, o)
	if err == nil {
		writePage(w, p)
	}
	return err
}
