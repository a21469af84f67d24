package cosmos_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/todoaudit/todo/apitest"
	"github.com/todoaudit/todo/app"
	"github.com/todoaudit/todo/config"
	"github.com/todoaudit/todo/cosmos"
)

// The whole handler on the Cosmos DB adapter (STORE=cosmos, key auth as
// with an emulator, the category scheme) passes the API suite's create,
// get, conditional update, list and delete cases over the wire.
func TestHandlerOnCosmos(t *testing.T) {
	endpoint := cosmos.WireEndpoint(t)
	database := cosmos.UniqueDatabase()
	t.Cleanup(func() { cosmos.DropDatabase(endpoint, database) })
	settings := map[string]string{
		"STORE": "cosmos", "COSMOS_ENDPOINT": endpoint, "COSMOS_KEY": cosmos.EmulatorKey,
		"COSMOS_DATABASE": database, "PARTITION_SCHEME": "category",
		"LISTEN_ADDR": "127.0.0.1:0", "AUDIT_PUMP": "off", "LOG_LEVEL": "error",
	}
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := settings[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Start(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), &app.Options{
		Cosmos: func(c *cosmos.Config) { c.ClientOptions = cosmos.WireClientOptions() },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.Close(ctx)
	})
	if err := a.Wait(); err != nil {
		t.Fatal(err)
	}
	c := &apitest.Client{T: t, Base: "http://" + a.Addr(), User: "alice"}
	apitest.CRUD(t, c, "category")
	if h := apitest.Want(t, c.Do("GET", "/api/health", nil), 200).JSON(t); h["store"] != "cosmos" {
		t.Fatalf("health: %v", h)
	}
}
