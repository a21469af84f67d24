package functions_test

import (
	"strings"
	"testing"

	"github.com/todoaudit/todo/functions"
)

// An idle deployment costs no invocation beyond a rare timer: no timer
// runs on start-up or more often than hourly (its seconds and minutes are
// fixed), and the log's integrator runs when the audit container changes.
func TestIdleAppStaysIdle(t *testing.T) {
	all, err := functions.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range all {
		name := f.Name
		in, ok := f.Trigger()
		if !ok || in.Type != "timerTrigger" {
			continue
		}
		fields := strings.Fields(in.Schedule)
		if len(fields) != 6 || strings.ContainsAny(fields[0]+fields[1], "*/,-") || in.RunOnStartup {
			t.Errorf("%s: timer %q (runOnStartup %v) fires more often than hourly or at every start", name, in.Schedule, in.RunOnStartup)
		}
	}
	f, err := functions.Get("LogIntegrator")
	if err != nil {
		t.Fatal(err)
	}
	if in, ok := f.Trigger(); !ok || in.Type != "cosmosDBTrigger" || in.ContainerName != "%COSMOS_AUDIT_CONTAINER%" || in.MaxItemsPerInvocation != 1 {
		t.Errorf("LogIntegrator is triggered by %+v, want the audit container's changes, one document an invocation", in)
	}
}
