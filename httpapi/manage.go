package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/telemetry/partitionload"
)

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
