package cosmos

import (
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/todoaudit/todo/store"
)

// priorityHeader asks Cosmos DB's priority-based execution to throttle a
// request before the account's default (High) ones when the account is
// over its throughput. An account without the feature ignores it.
const priorityHeader = "x-ms-cosmos-priority-level"

// priorityPolicy sends every request of a call whose context is marked
// store.WithLowPriority (background work) at Low priority. It is a per-call
// policy, so the SDK's retries of the request keep the header; calls made
// for users carry no mark and go at the account default.
type priorityPolicy struct{}

func (priorityPolicy) Do(req *policy.Request) (*http.Response, error) {
	if store.IsLowPriority(req.Raw().Context()) {
		req.Raw().Header.Set(priorityHeader, "Low")
	}
	return req.Next()
}
