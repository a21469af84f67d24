package cosmos_test

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/todoaudit/todo/app"
	"github.com/todoaudit/todo/app/apitest"
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
	apitest.AsOfUnaudited(t, c.As("dave"))
	// No pump here: a reconcile pass refills the audit from the version
	// documents, as it would after the real trigger dropped them.
	apitest.Proof(t, c.As("carol"), "category", func() {
		if _, err := a.Reconcile(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
	if h := apitest.Want(t, c.Do("GET", "/api/health", nil), 200).JSON(t); h["store"] != "cosmos" {
		t.Fatalf("health: %v", h)
	}
}

// The local loop Functions users run: `func start` with the emulator's
// connection string in the CosmosDB setting the trigger reads. The handler,
// started as the host starts it (FUNCTIONS_CUSTOMHANDLER_PORT) with only
// that setting for Cosmos DB, creates the containers and runs on the Cosmos
// store.
func TestHandlerWithEmulatorConnectionString(t *testing.T) {
	endpoint := cosmos.WireEndpoint(t)
	database := cosmos.UniqueDatabase()
	t.Cleanup(func() { cosmos.DropDatabase(endpoint, database) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	a := apitest.Start(t, map[string]string{
		"FUNCTIONS_CUSTOMHANDLER_PORT": port,
		"CosmosDB":                     "AccountEndpoint=" + endpoint + ";AccountKey=" + cosmos.EmulatorKey + ";",
		"COSMOS_DATABASE":              database, "AUTH_MODE": "single", "SINGLE_USER_ID": "alice",
	}, &app.Options{Listener: ln, Cosmos: func(c *cosmos.Config) {
		if c.Endpoint != endpoint || c.Key != cosmos.EmulatorKey {
			t.Errorf("adapter configured with endpoint %q and a key of %d bytes", c.Endpoint, len(c.Key))
		}
		c.ClientOptions = cosmos.WireClientOptions()
	}})
	if want := "127.0.0.1:" + port; a.Addr() != want {
		t.Fatalf("listening on %s, want %s", a.Addr(), want)
	}
	c := &apitest.Client{T: t, Base: "http://" + a.Addr()}
	if h := apitest.Want(t, c.Do("GET", "/api/health", nil), 200).JSON(t); h["store"] != "cosmos" {
		t.Fatalf("health: %v", h)
	}
	id := c.Create("Grocery", "milk")["id"].(string)
	if got := apitest.Want(t, c.Do("GET", "/api/todos/"+id, nil), 200).JSON(t); got["userId"] != "alice" {
		t.Fatalf("read back: %v", got)
	}
	// The todo is in the emulator's database, where the trigger reads it.
	items := c.ListAll("/api/todos?category=Grocery")
	if len(items) != 1 || items[0]["id"] != id {
		t.Fatalf("listed %v", items)
	}
}

// On the Cosmos DB adapter too: the Reconcile function refills audit
// records with their activity entries, the activity view answers the
// owner's records newest first, diffs and exports read the history, and a
// legal hold is placed, listed and released.
func TestAuditorOnCosmos(t *testing.T) {
	endpoint := cosmos.WireEndpoint(t)
	database := cosmos.UniqueDatabase()
	t.Cleanup(func() { cosmos.DropDatabase(endpoint, database) })
	a := apitest.Start(t, map[string]string{
		"STORE": "cosmos", "COSMOS_ENDPOINT": endpoint, "COSMOS_KEY": cosmos.EmulatorKey,
		"COSMOS_DATABASE": database, "PARTITION_SCHEME": "category", "AUDIT_PUMP": "off", "ADMIN_USERS": "dave",
	}, &app.Options{Cosmos: func(c *cosmos.Config) { c.ClientOptions = cosmos.WireClientOptions() }})
	c := &apitest.Client{T: t, Base: "http://" + a.Addr(), User: "dave"}
	id := c.Create("Grocery", "milk")["id"].(string)
	for _, title := range []string{"oat milk", "soy milk"} {
		apitest.Want(t, c.Do("PUT", "/api/todos/"+id, `{"category":"Grocery","title":"`+title+`"}`), 200)
	}
	if _, err := a.Reconcile(t.Context()); err != nil {
		t.Fatal(err)
	}
	items, _ := apitest.Want(t, c.Do("GET", "/api/activity", nil), 200).JSON(t)["items"].([]any)
	if len(items) != 3 || items[0].(map[string]any)["version"] != float64(3) || items[2].(map[string]any)["version"] != float64(1) {
		t.Fatalf("activity %v, want versions 3, 2, 1", items)
	}
	if other, _ := apitest.Want(t, c.As("erin").Do("GET", "/api/activity", nil), 200).JSON(t)["items"].([]any); len(other) != 0 {
		t.Fatalf("another user sees %v", other)
	}
	d := apitest.Want(t, c.Do("GET", "/api/todos/"+id+"/history/diff?from=1&to=3", nil), 200).JSON(t)
	if ch, _ := d["changes"].([]any); len(ch) != 1 || ch[0].(map[string]any)["to"] != "soy milk" {
		t.Fatalf("diff %v", d)
	}
	export := apitest.Want(t, c.Do("GET", "/api/manage/audit/export?owner=dave", nil), 200)
	if lines := strings.Split(strings.TrimSpace(string(export.Body)), "\n"); len(lines) != 4 || !strings.HasPrefix(lines[3], `{"manifest":{`) {
		t.Fatalf("export %s", export.Body)
	}
	h := apitest.Want(t, c.Do("POST", "/api/manage/holds", `{"userId":"dave","reason":"litigation"}`), 201).JSON(t)
	if hs, _ := apitest.Want(t, c.Do("GET", "/api/manage/holds", nil), 200).JSON(t)["items"].([]any); len(hs) != 1 {
		t.Fatalf("holds %v", hs)
	}
	apitest.Want(t, c.Do("DELETE", "/api/manage/holds/"+h["id"].(string)+"?reason=settled", nil), 204)
}
