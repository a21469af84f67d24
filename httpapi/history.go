package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/export"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/transparency"
)

func (a *api) history(ctx context.Context, w http.ResponseWriter, r *http.Request, id string) error {
	o, err := listOptions(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	asStored, err := recordForm(q.Get("form"), q.Has("form"))
	if err != nil {
		return err
	}
	read := a.Service.History
	if asStored {
		read = a.Service.HistoryAsStored
	}
	p, err := read(ctx, id, o.PageSize, o.Continuation)
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

// recordForm reads v, the form parameter of a page of audit records when
// given: whether they are served as stored, a record stored with its seed
// showing it in place of its commitments (export.FormSeeds, as NDJSON
// exports show records), or each with its commitments
// (export.FormCommitments, the default).
func recordForm(v string, given bool) (asStored bool, err error) {
	switch {
	case !given || v == strconv.Itoa(export.FormCommitments):
		return false, nil
	case v == strconv.Itoa(export.FormSeeds):
		return true, nil
	}
	return false, todo.Errorf(todo.Invalid, "form must be %d (each record with its commitments) or %d (a record stored with its seed with it in their place)",
		export.FormCommitments, export.FormSeeds)
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
