package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/gorilla/mux"
)

// router matches requests to the route table with gorilla/mux, on the
// escaped path, so that an id with an encoded slash stays one segment. It
// only matches: the api answers, so that no request is copied to carry
// mux's variables, and so that an unclean path is redirected with 308
// (mux's own redirect is a 301, which clients resend as a GET).
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
// Allow value. Each template's one variable is the plain {id}, or a last
// {path} of one or more segments (the log's tiles): no regular expression
// of ours runs per request but that one's.
func newRouter(routes []Route) *router {
	m := mux.NewRouter().UseEncodedPath().SkipClean(true)
	rr := &router{mux: m, endpoints: map[*mux.Route]endpoint{}}
	var paths []string
	methods := map[string][]string{}
	for i := range routes {
		rt := &routes[i]
		rr.add(m.Path(muxPath(rt.Path)).Methods(rt.Methods()...), endpoint{rt: rt})
		if _, ok := methods[rt.Path]; !ok {
			paths = append(paths, rt.Path)
		}
		methods[rt.Path] = append(methods[rt.Path], rt.Methods()...)
	}
	for _, p := range paths {
		rr.add(m.Path(muxPath(p)), endpoint{allow: []string{allowHeader(methods[p])}})
	}
	return rr
}

// muxPath is a route template as mux spells it: a last {path} as
// {path:.+}.
func muxPath(template string) string {
	if t, ok := strings.CutSuffix(template, "/"+restSegment); ok {
		return t + "/{path:.+}"
	}
	return template
}

func (rr *router) add(r *mux.Route, e endpoint) {
	if err := r.GetError(); err != nil {
		panic(fmt.Sprintf("route table: %v", err))
	}
	rr.endpoints[r] = e
}

// matches are reused across requests, each with its map of variables,
// which mux fills rather than making one when it is there: three
// allocations less per request.
var matches = sync.Pool{New: func() any { return &mux.RouteMatch{Vars: map[string]string{}} }}

// match returns the endpoint of r's path and method and the path's
// still percent-encoded {id}; false when no route has r's path.
func (rr *router) match(r *http.Request) (endpoint, string, bool) {
	m := matches.Get().(*mux.RouteMatch)
	defer func() {
		vars := m.Vars
		clear(vars)
		*m = mux.RouteMatch{Vars: vars}
		matches.Put(m)
	}()
	if !rr.mux.Match(r, m) {
		return endpoint{}, "", false
	}
	return rr.endpoints[m.Route], m.Vars["id"], true
}
