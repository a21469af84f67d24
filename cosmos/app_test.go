package cosmos_test

import (
	"testing"

	"github.com/todoaudit/todo/apitest"
	"github.com/todoaudit/todo/app"
	"github.com/todoaudit/todo/azfunc"
	"github.com/todoaudit/todo/cosmos"
)

// The whole handler on the Cosmos DB adapter (STORE=cosmos, key auth as
// with an emulator, the category scheme) passes the API suite's create,
// get, conditional update, list and delete cases over the wire, and keeps
// deleted and moved ids from coming back, and its histories verify.
func TestHandlerOnCosmos(t *testing.T) {
	endpoint := cosmos.WireEndpoint(t)
	database := cosmos.UniqueDatabase()
	t.Cleanup(func() { cosmos.DropDatabase(endpoint, database) })
	a := apitest.Start(t, map[string]string{
		"STORE": "cosmos", "COSMOS_ENDPOINT": endpoint, "COSMOS_KEY": cosmos.EmulatorKey,
		"COSMOS_DATABASE": database, "PARTITION_SCHEME": "category", "AUDIT_PUMP": "off",
	}, &app.Options{Cosmos: func(c *cosmos.Config) { c.ClientOptions = cosmos.WireClientOptions() }})
	c := &apitest.Client{T: t, Base: "http://" + a.Addr(), User: "alice"}
	apitest.CRUD(t, c, "category")
	apitest.Gone(t, c.As("bob"), "category")
	// No pump here: the Reconcile function refills the audit from the
	// version documents, as it would after the real trigger dropped them.
	apitest.Proof(t, c.As("carol"), "category", func() {
		apitest.Want(t, c.Do("POST", "/Reconcile", `{"Data":{"timer":{"IsPastDue":false}},"Metadata":{"sys":{"MethodName":"Reconcile"}}}`,
			azfunc.KeyHeader+": "+a.InvocationKey()), 200)
	})
	if h := apitest.Want(t, c.Do("GET", "/api/health", nil), 200).JSON(t); h["store"] != "cosmos" {
		t.Fatalf("health: %v", h)
	}
}
