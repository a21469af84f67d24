package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/gorilla/mux"
)

// router matches requests to the route table with gorilla/mux, on the
// escaped path (match's p), so that an id with an encoded slash stays one
// segment. It
// only matches: the api answers, so that no request is copied to carry
// mux's variables, and so that an unclean path is redirected with 308
// (mux's own redirect is a 301, which clients resend as a GET). Each
// route's path is matched by comparing segments with its template, not by
// mux's regular expressions, which cost a point read more than the rest of
// its routing.
type router struct {
	mux       *mux.Router
	endpoints map[*mux.Route]endpoint
}

// endpoint is what a mux route stands for: a route of the table, or (rt
// nil) every other method on a path of the table, answered with allow,
// the path's Allow header.
type endpoint struct {
	rt    *Route
	allow []string
}

// newRouter registers every route with its methods, then for each path a
// route without a method, so that any other method on it finds the path's
// Allow value. Each template's variable is the plain {id}, or a last
// {path} of one or more segments (the log's tiles).
func newRouter(routes []Route) *router {
	m := mux.NewRouter().SkipClean(true)
	rr := &router{mux: m, endpoints: map[*mux.Route]endpoint{}}
	var paths []string
	methods := map[string][]string{}
	for i := range routes {
		rt := &routes[i]
		rr.add(m.NewRoute().MatcherFunc(segments(rt.Path)).Methods(rt.Methods()...), endpoint{rt: rt})
		if _, ok := methods[rt.Path]; !ok {
			paths = append(paths, rt.Path)
		}
		methods[rt.Path] = append(methods[rt.Path], rt.Methods()...)
	}
	for _, p := range paths {
		rr.add(m.NewRoute().MatcherFunc(segments(p)), endpoint{allow: []string{allowHeader(methods[p])}})
	}
	return rr
}

func (rr *router) add(r *mux.Route, e endpoint) {
	if err := r.GetError(); err != nil {
		panic(fmt.Sprintf("route table: %v", err))
	}
	rr.endpoints[r] = e
}

// pathVar is the variable under which match hands the matchers the
// request's escaped path, found once per request; no template variable
// can have the empty name.
const pathVar = ""

// idSegment is the variable a template may have in any segment: a whole
// segment, which matches any non-empty segment, as mux's {id} does.
const idSegment = "{id}"

// segments returns the matcher of a path template: the same number of
// segments, each literal one equal, {id} any non-empty one, which it sets
// as the variable id, and a last {path} one or more. A template with
// another kind of variable panics.
func segments(template string) mux.MatcherFunc {
	want := strings.Split(strings.TrimPrefix(template, "/"), "/")
	for i, w := range want {
		if w != idSegment && !(w == restSegment && i == len(want)-1) && strings.ContainsAny(w, "{}") {
			panic(fmt.Sprintf("route table: %s: only a whole segment {id}, or a last {path}, may be a variable", template))
		}
	}
	return func(_ *http.Request, m *mux.RouteMatch) bool {
		rest, ok := strings.CutPrefix(m.Vars[pathVar], "/")
		if !ok {
			return false
		}
		id := ""
		for i, w := range want {
			if w == restSegment {
				return rest != "" // one or more segments, read by the handler
			}
			seg, tail, more := strings.Cut(rest, "/")
			if more == (i == len(want)-1) {
				return false
			}
			switch {
			case w == idSegment && seg != "":
				id = seg
			case w != seg:
				return false
			}
			rest = tail
		}
		if id != "" {
			m.Vars["id"] = id
		}
		return true
	}
}

// matches are reused across requests, each with its map of variables,
// which mux fills rather than making one when it is there: three
// allocations less per request.
var matches = sync.Pool{New: func() any { return &mux.RouteMatch{Vars: map[string]string{}} }}

// match returns the endpoint of r's method and escaped path p and the
// path's still percent-encoded {id}; false when no route has the path.
func (rr *router) match(r *http.Request, p string) (endpoint, string, bool) {
	m := matches.Get().(*mux.RouteMatch)
	defer func() {
		vars := m.Vars
		clear(vars)
		*m = mux.RouteMatch{Vars: vars}
		matches.Put(m)
	}()
	m.Vars[pathVar] = p
	if !rr.mux.Match(r, m) {
		return endpoint{}, "", false
	}
	return rr.endpoints[m.Route], m.Vars["id"], true
}
