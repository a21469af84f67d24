package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/health"
	"github.com/todoaudit/todo/internal/header"
	"github.com/todoaudit/todo/internal/jsondoc"
	"github.com/todoaudit/todo/problem"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/telemetry/partitionload"
	"github.com/todoaudit/todo/transparency"
)

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		problem.Write(w, todo.Wrap(todo.Internal, err, "response does not encode"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

func writeTodo(w http.ResponseWriter, status int, res service.Result) {
	h := w.Header()
	h["Etag"] = []string{httpETag(res.ETag)} // the canonical key, set without canonicalising it
	if status == http.StatusCreated {
		h.Set("Location", todoPath(res.Todo.ID))
	}
	writeOne(w, status, &res.Todo)
}

// bodies holds the buffers of single-todo answers between requests: Write
// copies an answer out and must not keep it.
var bodies = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledBody bounds the buffers kept in bodies, so that one large todo
// does not stay in memory after its request.
const maxPooledBody = 4 << 10

// writeOne answers the API view of t.
func writeOne(w http.ResponseWriter, status int, t *todo.Todo) {
	buf := bodies.Get().(*[]byte)
	*buf = append(t.AppendView((*buf)[:0]), '\n')
	writeBytes(w, status, *buf)
	if cap(*buf) <= maxPooledBody {
		bodies.Put(buf)
	}
}

// todoPath is the URL path of the todo id.
func todoPath(id string) string { return "/api/todos/" + url.PathEscape(id) }

// writeRecords answers a page of records, of a history or of activity,
// each appending itself without encoding/json's reflection, and then the
// members more (see appendPage); the bytes are json.Marshal's
// (TestPagesEncodeAsEncodingJSON).
func writeRecords[T todo.JSONAppender](w http.ResponseWriter, items []T, continuation string, more []byte) {
	item := func(b []byte, i int) ([]byte, error) { return items[i].AppendJSON(b) }
	b, err := appendPage(make([]byte, 0, 1024*len(items)+64), len(items), item, continuation, more)
	if err != nil {
		problem.Write(w, todo.Wrap(todo.Internal, err, "response does not encode"))
		return
	}
	writeBytes(w, http.StatusOK, append(b, '\n'))
}

// jsonType is the Content-Type of JSON answers: one value shared by every
// answer and never modified, so that setting it allocates nothing.
var jsonType = []string{"application/json"}

func writeBytes(w http.ResponseWriter, status int, b []byte) {
	w.Header()["Content-Type"] = jsonType
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// ifMatch parses an If-Match header: "" (absent), "*", or one strong ETag.
func ifMatch(r *http.Request) (string, error) {
	v := strings.TrimSpace(header.Get(r.Header, "If-Match"))
	if v == "" || v == "*" {
		return v, nil
	}
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' || strings.Count(v, `"`) != 2 {
		return "", todo.Errorf(todo.Invalid, "If-Match must be * or one quoted ETag, as returned in the ETag header")
	}
	return v, nil
}

// createOnly reads a PUT's If-None-Match: only "*" (create, never update)
// means something there, and it contradicts an If-Match.
func createOnly(r *http.Request, match string) (bool, error) {
	v := strings.TrimSpace(header.Get(r.Header, "If-None-Match"))
	switch {
	case v == "":
		return false, nil
	case v != "*":
		return false, todo.Errorf(todo.Invalid, "If-None-Match on PUT must be *")
	case match != "":
		return false, todo.Errorf(todo.Invalid, "If-Match and If-None-Match cannot be combined")
	}
	return true, nil
}

func (a *api) body(r *http.Request, v any) error {
	_, err := decodeBody(r, a.MaxBodyBytes, v)
	return err
}

// answer writes a todo result with the given status, when there was no
// error.
func answer(w http.ResponseWriter, status int, res service.Result, err error) error {
	if err == nil {
		writeTodo(w, status, res)
	}
	return err
}

func (a *api) create(ctx context.Context, w http.ResponseWriter, r *http.Request, _ string) error {
	var f todo.Fields
	idem, err := a.idempotentBody(r, &f)
	if err != nil {
		return err
	}
	var res service.Result
	if idem != nil {
		res, err = a.Service.CreateOnce(ctx, f, *idem)
	} else {
		res, err = a.Service.Create(ctx, f)
	}
	return answer(w, http.StatusCreated, res, err)
}

func (a *api) put(ctx context.Context, w http.ResponseWriter, r *http.Request, id string) error {
	match, err := ifMatch(r)
	if err != nil {
		return err
	}
	var f todo.Fields
	if err := a.body(r, &f); err != nil {
		return err
	}
	createOnly, err := createOnly(r, match)
	if err != nil {
		return err
	}
	res, err := a.Service.Put(ctx, id, f, match, createOnly)
	status := http.StatusOK
	if res.Created {
		status = http.StatusCreated
	}
	return answer(w, status, res, err)
}

func (a *api) get(ctx context.Context, w http.ResponseWriter, r *http.Request, id string) error {
	if at, ok, err := asOf(r); err != nil || ok {
		if err != nil {
			return err
		}
		res, err := a.Service.AsOf(ctx, id, at)
		if err == nil {
			writeOne(w, http.StatusOK, &res.Todo)
		}
		return err
	}
	res, err := a.Service.Get(ctx, id)
	if err != nil {
		return err
	}
	if noneMatch(header.Get(r.Header, "If-None-Match"), httpETag(res.ETag)) {
		w.Header().Set("ETag", httpETag(res.ETag))
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	writeTodo(w, http.StatusOK, res)
	return nil
}

// asOf reads GetTodo's asOf parameter: the RFC 3339 time to read the todo
// as of, from its history.
func asOf(r *http.Request) (time.Time, bool, error) {
	if r.URL.RawQuery == "" {
		return time.Time{}, false, nil
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return time.Time{}, false, todo.Errorf(todo.Invalid, "query string is not validly encoded")
	}
	vs, ok := q["asOf"]
	if !ok {
		return time.Time{}, false, nil
	}
	at, err := todo.ParseTime(vs[0])
	if err != nil {
		return time.Time{}, false, todo.Errorf(todo.Invalid, "asOf must be an RFC 3339 time, such as 2026-01-02T15:04:05Z")
	}
	return at, true, nil
}

// httpETag is a store's ETag as an HTTP entity tag: quoted. Cosmos DB's
// _etag values carry their quotes; other stores' may not.
func httpETag(s string) string {
	if s == "" || (len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"') {
		return s
	}
	return `"` + s + `"`
}

// noneMatch reports whether an If-None-Match header matches etag (weak
// comparison, as RFC 9110 requires for If-None-Match).
func noneMatch(header, etag string) bool {
	for header != "" {
		var tag string
		tag, header, _ = strings.Cut(header, ",")
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || (tag != "" && tag == etag) {
			return true
		}
	}
	return false
}

func (a *api) delete(ctx context.Context, w http.ResponseWriter, r *http.Request, id string) error {
	match, err := ifMatch(r)
	if err != nil {
		return err
	}
	err = a.Service.Delete(ctx, id, match)
	if err == nil {
		w.WriteHeader(http.StatusNoContent)
	}
	return err
}

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

// writePage answers a page of todos, each in its API view.
func writePage(w http.ResponseWriter, p service.Page) {
	item := func(b []byte, i int) ([]byte, error) { return p.Items[i].Todo.AppendView(b), nil }
	b, _ := appendPage(make([]byte, 0, 256*(len(p.Items)+1)), len(p.Items), item, p.Continuation, nil) // views always append
	writeBytes(w, http.StatusOK, append(b, '\n'))
}

// appendPage appends the body of a page answer: {"items":[…],
// "continuation":…}, the token null when there is none, then the members
// more (each with its leading comma). item appends the i-th of n items.
func appendPage(b []byte, n int, item func([]byte, int) ([]byte, error), continuation string, more []byte) ([]byte, error) {
	b = append(b, `{"items":[`...)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = item(b, i); err != nil {
			return nil, err
		}
	}
	b = append(b, `],"continuation":`...)
	if continuation != "" {
		b = jsondoc.AppendString(b, continuation, jsondoc.JSON)
	} else {
		b = append(b, "null"...)
	}
	return append(append(b, more...), '}'), nil
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

func (a *api) history(ctx context.Context, w http.ResponseWriter, r *http.Request, id string) error {
	o, err := listOptions(r)
	if err != nil {
		return err
	}
	p, err := a.Service.History(ctx, id, o.PageSize, o.Continuation)
	if err != nil {
		return err
	}
	// The last page ends the history: a later version in the log is one
	// the store has lost, served with its proof.
	var beyond *transparency.Inclusion
	if p.Continuation == "" && len(p.Items) > 0 {
		if _, beyond, err = a.loggedAfter(ctx, id, p.Items[len(p.Items)-1].Version); err != nil {
			return err
		}
	}
	more := strconv.AppendBool(append([]byte(nil), `,"complete":`...), p.Complete && beyond == nil)
	if beyond != nil {
		b, err := json.Marshal(proofOf(beyond))
		if err != nil {
			return todo.Wrap(todo.Internal, err, "proof does not encode")
		}
		more = append(append(more, `,"loggedAfter":`...), b...)
	}
	writeRecords(w, p.Items, p.Continuation, more)
	return nil
}

// verification is the body of a VerifyHistory answer.
type verification struct {
	Verified bool   `json:"verified"`
	Versions *int   `json:"versions,omitempty"`
	BrokenAt int64  `json:"brokenAt,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// PurgedBefore is the first version kept, when the retention period
	// purged the ones before it.
	PurgedBefore int64 `json:"purgedBefore,omitempty"`
	// Erased counts the versions checked whose personal fields were
	// erased (checked by their digests); FirstEncoding those of the first
	// chain encoding, which an erasure leaves as they are.
	Erased        int `json:"erased,omitempty"`
	FirstEncoding int `json:"firstEncoding,omitempty"`
	// Logged and Pending count the versions in the transparency log's
	// latest checkpoint and those not integrated yet, when there is a log.
	Logged *int `json:"logged,omitempty"`
	// Witnessed is what the log's witnesses say of its latest checkpoint,
	// when it has witnesses: without their quorum the versions in it
	// count as pending.
	Witnessed *transparency.Witnessed `json:"witnessed,omitempty"`
	Pending   *int                    `json:"pending,omitempty"`
	// Next, when set, is the URL that checks the rest of a history this
	// answer ran out of time for: Versions were checked, soundly, from the
	// step's from.
	Next string `json:"next,omitempty"`
}

func (a *api) verify(ctx context.Context, w http.ResponseWriter, r *http.Request, id string) error {
	q, err := queryOf(r, "from", "prevHash")
	if err != nil {
		return err
	}
	var step service.VerifyStep
	if _, ok := q["from"]; ok {
		if step.From, err = versionParam(q, "from"); err != nil {
			return err
		}
	}
	step.PrevHash = q["prevHash"]
	body, lost, err := a.verifyAgainstLog(ctx, id, step)
	if lost {
		// A version written since the chain was walked is in the log
		// already, or the store lost versions: walking again tells.
		body, _, err = a.verifyAgainstLog(ctx, id, step)
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, body)
	return nil
}

// verifyAgainstLog verifies the chain of the caller's todo id from step,
// and then, with a log, compares the versions checked with it: lost says
// the log holds a version after the newest the store has.
func (a *api) verifyAgainstLog(ctx context.Context, id string, step service.VerifyStep) (verification, bool, error) {
	v, err := a.Service.Verify(ctx, id, step)
	if err != nil {
		return verification{}, false, err
	}
	body := verification{Verified: v.Verified, BrokenAt: v.BrokenAt, Reason: v.Reason, PurgedBefore: v.PurgedBefore,
		Erased: v.Erased, FirstEncoding: v.FirstEncoding}
	if v.Verified || v.Next != nil {
		body.Versions = &v.Versions
	}
	if v.Next != nil {
		body.Next = todoPath(id) + "/history/verify?from=" + strconv.FormatInt(v.Next.From, 10) + "&prevHash=" + url.QueryEscape(v.Next.PrevHash)
	}
	if !v.Verified || a.Transparency == nil {
		return body, false, nil
	}
	l, err := a.logged(ctx, id, v.Checked)
	if err != nil {
		return body, false, err
	}
	if body.Witnessed, err = a.Transparency.Witnessed(ctx); err != nil && !todo.IsKind(err, todo.NotFound) {
		return body, false, err
	}
	if body.Witnessed != nil && !body.Witnessed.Quorum {
		// Without the witnesses' quorum no checkpoint counts: what the log
		// holds is pending until it is cosigned.
		l.Pending, l.Logged = l.Pending+l.Logged, 0
	}
	body.Logged, body.Pending = &l.Logged, &l.Pending
	if l.Differs != 0 {
		body.Verified, body.Versions = false, nil
		body.BrokenAt, body.Reason = l.Differs, "version "+strconv.FormatInt(l.Differs, 10)+" is not the version the transparency log holds"
		return body, false, nil
	}
	if v.Next != nil || len(v.Checked) == 0 {
		return body, false, nil
	}
	last := v.Checked[len(v.Checked)-1].Version
	newest, _, err := a.loggedAfter(ctx, id, last)
	if err != nil || newest == 0 {
		return body, false, err
	}
	body.Verified, body.Versions = false, nil
	body.BrokenAt, body.Reason = last+1, fmt.Sprintf("the transparency log holds versions %d to %d, which the store no longer has", last+1, newest)
	return body, true, nil
}

// deadLetterPage is the body of dead-letter answers.
type deadLetterPage struct {
	Items        []todo.DeadLetter `json:"items"`
	Continuation *string           `json:"continuation"`
}

func (a *api) deadLetters(ctx context.Context, w http.ResponseWriter, r *http.Request, _ string) error {
	o, err := listOptions(r)
	if err != nil {
		return err
	}
	p, err := a.Service.DeadLetters(ctx, o.PageSize, o.Continuation)
	if err != nil {
		return err
	}
	body := deadLetterPage{Items: p.Items}
	if body.Items == nil {
		body.Items = []todo.DeadLetter{}
	}
	if p.Continuation != "" {
		body.Continuation = &p.Continuation
	}
	writeJSON(w, http.StatusOK, body)
	return nil
}

func (a *api) rollback(ctx context.Context, w http.ResponseWriter, r *http.Request, id string) error {
	match, err := ifMatch(r)
	if err != nil {
		return err
	}
	var in struct {
		Version *int64 `json:"version"`
	}
	idem, err := a.idempotentBody(r, &in)
	if err != nil {
		return err
	}
	if in.Version == nil {
		return todo.Errorf(todo.Invalid, "version is required")
	}
	var res service.Result
	if idem != nil {
		res, err = a.Service.RollbackOnce(ctx, id, *in.Version, match, *idem)
	} else {
		res, err = a.Service.Rollback(ctx, id, *in.Version, match)
	}
	return answer(w, http.StatusOK, res, err)
}

func (a *api) move(ctx context.Context, w http.ResponseWriter, r *http.Request, id string) error {
	match, err := ifMatch(r)
	if err != nil {
		return err
	}
	var in struct {
		Category *string `json:"category"`
	}
	idem, err := a.idempotentBody(r, &in)
	if err != nil {
		return err
	}
	if in.Category == nil {
		return todo.Errorf(todo.Invalid, "category is required")
	}
	var res service.Result
	if idem != nil {
		res, err = a.Service.MoveOnce(ctx, id, *in.Category, match, *idem)
	} else {
		res, err = a.Service.Move(ctx, id, *in.Category, match)
	}
	return answer(w, http.StatusCreated, res, err)
}

// healthBody is the body of /api/health.
type healthBody struct {
	Status string       `json:"status"`
	Store  string       `json:"store"`
	Scheme string       `json:"scheme"`
	Audit  health.Audit `json:"audit"`
}

func (a *api) health(_ context.Context, w http.ResponseWriter, _ *http.Request, _ string) error {
	st := a.Health()
	body := healthBody{Status: string(st.State), Store: a.StoreName, Scheme: a.Service.Scheme().Name(), Audit: st.Audit}
	code := http.StatusOK
	if st.State != health.OK {
		// A degraded handler names the cause where the store's name was.
		code, body.Store = http.StatusServiceUnavailable, st.Cause
		w.Header().Set("Retry-After", "5")
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, code, body)
	return nil
}

// partitionsView is the body of GET /api/manage/partitions. Scope says
// whose calls it counts: this process's only (ScopeInstance).
type partitionsView struct {
	Window     string               `json:"window"`
	Resolution string               `json:"resolution"`
	Scope      string               `json:"scope"`
	FleetQuery *fleetQuery          `json:"fleetQuery,omitempty"`
	Partitions []partitionload.Stat `json:"partitions"`
}

// ScopeInstance is the partition view's scope: the calls of the process
// that answers, which under the Functions host is one instance of many.
const ScopeInstance = "instance"

// The query the deployment saves in its Log Analytics workspace over Cosmos
// DB's own per-partition-key RU log, which counts every instance's load
// (infra/bicep/modules/monitoring.bicep; the infrastructure tests check the
// names agree).
const (
	FleetQueryName  = "Top partition keys by RU, last hour, per 5 minutes"
	FleetQueryTable = "CDBPartitionKeyRUConsumption"
)

// fleetQuery points from one instance's view to the fleet-wide one.
type fleetQuery struct {
	Name  string `json:"name"`
	Table string `json:"table"`
	Hint  string `json:"hint"`
}

var hostedFleetQuery = &fleetQuery{Name: FleetQueryName, Table: FleetQueryTable,
	Hint: "This view counts the requests of the instance that answered. For all instances, run the saved query \"" +
		FleetQueryName + "\" in the deployment's Log Analytics workspace with the time range set to the last hour " +
		"(queries of this Basic-plan table are charged by the range they scan)."}

// defaultTop is how many partitions the live view lists without ?top.
const defaultTop = 20

// partitions serves the live view of the hottest logical partitions:
// ?top=N (1 to 1000) and ?container=NAME.
func (a *api) partitions(_ context.Context, w http.ResponseWriter, r *http.Request, _ string) error {
	if a.Partitions == nil {
		return todo.Errorf(todo.NotFound, "the partition load view is not enabled")
	}
	q := r.URL.Query()
	n := defaultTop
	if v := q.Get("top"); v != "" {
		t, err := strconv.Atoi(v)
		if err != nil || t < 1 || t > 1000 {
			return todo.Errorf(todo.Invalid, "top must be an integer from 1 to 1000")
		}
		n = t
	}
	top := a.Partitions.Top(n, q.Get("container"))
	if top == nil {
		top = []partitionload.Stat{}
	}
	w.Header().Set("Cache-Control", "no-store")
	view := partitionsView{Window: a.Partitions.Window().String(), Resolution: a.Partitions.Resolution().String(),
		Scope: ScopeInstance, Partitions: top}
	if a.Hosted {
		view.FleetQuery = hostedFleetQuery
	}
	writeJSON(w, http.StatusOK, view)
	return nil
}

// openAPIETag is the entity tag of the served contract: a digest of it,
// so that it changes exactly when the document does.
var openAPIETag = func() string {
	sum := sha256.Sum256(todo.OpenAPI)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}()

// openAPI serves the API's contract, openapi.json, as built into the
// handler.
func (a *api) openAPI(_ context.Context, w http.ResponseWriter, r *http.Request, _ string) error {
	h := w.Header()
	h.Set("ETag", openAPIETag)
	h.Set("Cache-Control", "no-cache")
	if noneMatch(header.Get(r.Header, "If-None-Match"), openAPIETag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	writeBytes(w, http.StatusOK, todo.OpenAPI)
	return nil
}
