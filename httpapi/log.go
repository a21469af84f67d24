package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/auth"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/transparency"
)

// The transparency log's routes: the checkpoint, key, tiles and
// consistency proofs are public (they hold hashes and identifiers only);
// the proof of a version needs the todo's owner, the audit of the whole log
// an admin.

// transparency is the log, or NotFound when the handler runs without one.
func (a *api) transparency() (*transparency.Log, error) {
	if a.Transparency == nil {
		return nil, todo.Errorf(todo.NotFound, "the transparency log is not enabled")
	}
	return a.Transparency, nil
}

func writeText(w http.ResponseWriter, cache string, b []byte) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", cache)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

func (a *api) logCheckpoint(ctx context.Context, w http.ResponseWriter, _ *http.Request, _ string) error {
	l, err := a.transparency()
	if err != nil {
		return err
	}
	msg, _, at, err := l.Published(ctx)
	if err == nil {
		if at.Unix() > 0 {
			w.Header().Set("Last-Modified", at.Format(http.TimeFormat))
		}
		writeText(w, "no-cache", msg)
	}
	return err
}

func (a *api) logKey(_ context.Context, w http.ResponseWriter, _ *http.Request, _ string) error {
	l, err := a.transparency()
	if err == nil {
		writeText(w, "public, max-age=300", []byte(l.Keys.VerifierKey+"\n"))
	}
	return err
}

func (a *api) logPolicy(_ context.Context, w http.ResponseWriter, _ *http.Request, _ string) error {
	l, err := a.transparency()
	if err == nil {
		writeText(w, "public, max-age=300", l.Policy().Text)
	}
	return err
}

// tileRoute is the prefix of tile paths; what follows is the C2SP path
// after its "tile/".
const tileRoute = "/api/log/tile/"

// immutableCache is for what never changes at its URL: a tile, full or
// partial (a wider partial tile, or the full one, is at a path of its own,
// and C2SP tlog-tiles asks for long-lived caching), and the consistency
// proof between two sizes.
const immutableCache = "public, max-age=31536000, immutable"

func (a *api) logTile(ctx context.Context, w http.ResponseWriter, r *http.Request, _ string) error {
	l, err := a.transparency()
	if err != nil {
		return err
	}
	b, t, err := l.Tile(ctx, "tile/"+strings.TrimPrefix(r.URL.EscapedPath(), tileRoute))
	if err != nil {
		return err
	}
	cache := immutableCache
	if t.L == -1 && transparency.ForAdminsOnly(b) {
		// Leaves written before the log stopped naming versions: its
		// administrators' only, and never kept by a shared cache.
		if _, err := a.Auth.Authorize(r, auth.Admin); err != nil {
			if c := auth.Challenge(err); c != "" {
				w.Header().Set("WWW-Authenticate", c)
			}
			return err
		}
		cache = "private, no-store"
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Cache-Control", cache)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
	return nil
}

// intParams reads the named non-negative integer query parameters, each
// required (the router has refused any other, and any given twice).
func intParams(r *http.Request, names ...string) ([]int64, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, todo.Errorf(todo.Invalid, "query string is not validly encoded")
	}
	out := make([]int64, len(names))
	for i, name := range names {
		vs := q[name]
		if len(vs) != 1 {
			return nil, todo.Errorf(todo.Invalid, "query parameter %s is required, once", name)
		}
		n, err := strconv.ParseInt(vs[0], 10, 64)
		if err != nil || n < 0 {
			return nil, todo.Errorf(todo.Invalid, "%s must be a whole number of at least 0", name)
		}
		out[i] = n
	}
	return out, nil
}

// consistencyBody is the answer of GET /api/log/consistency.
type consistencyBody struct {
	From  int64    `json:"from"`
	To    int64    `json:"to"`
	Proof []string `json:"proof"`
}

func (a *api) logConsistency(ctx context.Context, w http.ResponseWriter, r *http.Request, _ string) error {
	l, err := a.transparency()
	if err != nil {
		return err
	}
	n, err := intParams(r, "from", "to")
	if err != nil {
		return err
	}
	p, err := l.Consistency(ctx, n[0], n[1])
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", immutableCache)
	writeJSON(w, http.StatusOK, consistencyBody{From: n[0], To: n[1], Proof: hashStrings(p)})
	return nil
}

func hashStrings[H interface{ String() string }](hs []H) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.String()
	}
	return out
}

// proofBody is the answer of GET /api/todos/{id}/history/proof.
type proofBody struct {
	Checkpoint string   `json:"checkpoint"`
	Index      int64    `json:"index"`
	Leaf       []byte   `json:"leaf"`
	Proof      []string `json:"proof"`
}

func (a *api) historyProof(ctx context.Context, w http.ResponseWriter, r *http.Request, id string) error {
	l, err := a.transparency()
	if err != nil {
		return err
	}
	q, err := queryOf(r, "version")
	if err != nil {
		return err
	}
	version, err := versionParam(q, "version")
	if err != nil {
		return err
	}
	user, err := service.Caller(ctx)
	if err != nil {
		return err
	}
	p, err := l.Prove(ctx, todo.EntityKey(user, id), version)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, proofOf(&p))
	return nil
}

func proofOf(p *transparency.Inclusion) proofBody {
	return proofBody{Checkpoint: string(p.Checkpoint), Index: p.Index, Leaf: p.Leaf, Proof: hashStrings(p.Proof)}
}

// loggedAfter is the newest version of the caller's todo id after version
// that the log holds, and its proof: 0 and nil when it holds none, or
// there is no log.
func (a *api) loggedAfter(ctx context.Context, id string, version int64) (int64, *transparency.Inclusion, error) {
	if a.Transparency == nil {
		return 0, nil, nil
	}
	user, err := service.Caller(ctx)
	if err != nil {
		return 0, nil, err
	}
	n, in, err := a.Transparency.After(ctx, todo.EntityKey(user, id), version)
	if err != nil || n == 0 {
		return 0, nil, err
	}
	return n, &in, nil
}

// logged compares the versions a verification checked with the log: how
// many of them are in the latest checkpoint, how many are not yet, and the
// first logged with another leaf than its record gives.
func (a *api) logged(ctx context.Context, id string, checked []service.CheckedVersion) (transparency.Logged, error) {
	user, err := service.Caller(ctx)
	if err != nil {
		return transparency.Logged{}, err
	}
	key := todo.EntityKey(user, id)
	records := make([]todo.AuditRecord, len(checked))
	for i, c := range checked {
		records[i] = todo.AuditRecord{EntityKey: key, EntityID: id, EntityType: todo.EntityTypeTodo, Version: c.Version,
			DateCreatedUTC: c.At, PrevHash: c.PrevHash, Hash: c.Hash}
	}
	return a.Transparency.Check(ctx, records)
}

// logGrace is how old an audit record must be before the audit of the log
// counts its absence from the log as a problem rather than pending.
const logGrace = time.Minute

func (a *api) verifyLog(ctx context.Context, w http.ResponseWriter, _ *http.Request, _ string) error {
	l, err := a.transparency()
	if err != nil {
		return err
	}
	rep, err := l.AuditStore(ctx, logGrace, time.Now())
	if err == nil {
		w.Header().Set("Cache-Control", "no-store")
		writeJSON(w, http.StatusOK, rep)
	}
	return err
}
