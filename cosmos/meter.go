package cosmos

import (
	"net/http"
	"strconv"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/todoaudit/todo/store"
)

// meterPolicy charges every HTTP request, and the request charge Cosmos DB
// reports for it, to the store.Meter of the request's context. It is a
// per-retry policy, after the SDK's own retry loops, so retried requests
// are counted too. The container methods charge the scope of their call.
type meterPolicy struct{}

func (meterPolicy) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	cost := store.Cost{Requests: 1}
	if resp != nil {
		if ru, perr := strconv.ParseFloat(resp.Header.Get("x-ms-request-charge"), 64); perr == nil && ru > 0 {
			cost.Charge = ru
		}
	}
	store.Charge(req.Raw().Context(), cost)
	return resp, err
}
