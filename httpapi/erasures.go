package httpapi

import (
	"context"
	"net/http"
	"net/url"

	"github.com/todoaudit/todo/governance"
)

// erasureInput is the body of POST /api/manage/erasures.
type erasureInput struct {
	UserID string `json:"userId"`
	Reason string `json:"reason"`
}

// writeErasure answers a started erasure: 202 with its status and where
// to poll it.
func writeErasure(w http.ResponseWriter, location string, e governance.Erasure) {
	w.Header().Set("Location", location)
	writeJSON(w, http.StatusAccepted, e)
}

func (a *api) requestErasure(ctx context.Context, w http.ResponseWriter, r *http.Request, _ string) error {
	var in erasureInput
	if err := a.body(r, &in); err != nil {
		return err
	}
	e, err := a.Service.RequestErasure(ctx, in.UserID, in.Reason)
	if err == nil {
		writeErasure(w, "/api/manage/erasures/"+url.PathEscape(e.ID), e)
	}
	return err
}

func (a *api) erasureStatus(ctx context.Context, w http.ResponseWriter, _ *http.Request, id string) error {
	e, err := a.Service.Erasure(ctx, id)
	if err == nil {
		writeJSON(w, http.StatusOK, e)
	}
	return err
}

// eraseMyData serves DELETE /api/me/data: the caller's own erasure.
func (a *api) eraseMyData(ctx context.Context, w http.ResponseWriter, _ *http.Request, _ string) error {
	e, err := a.Service.EraseMyData(ctx)
	if err == nil {
		writeErasure(w, "/api/me/erasure", e)
	}
	return err
}

func (a *api) myErasure(ctx context.Context, w http.ResponseWriter, _ *http.Request, _ string) error {
	e, err := a.Service.MyErasure(ctx)
	if err == nil {
		writeJSON(w, http.StatusOK, e)
	}
	return err
}
