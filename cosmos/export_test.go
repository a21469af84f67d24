package cosmos

import (
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// What the external tests of this package (cosmos_test) need of the
// internal test harness: the test server, its fixes and a database name.

// WireEndpoint returns the test server's endpoint, or skips the test.
func WireEndpoint(t testing.TB) string { return wire(t) }

// WireClientOptions are client options with the server fixes (W1-W3).
func WireClientOptions() *azcosmos.ClientOptions {
	return fastRetries(serverFixes{next: http.DefaultClient})
}

// EmulatorKey is the well-known emulator key the test server accepts.
const EmulatorKey = emulatorKey

// UniqueDatabase names a database no other test uses.
func UniqueDatabase() string { return uniqueDatabase() }

// DropDatabase removes a test database.
func DropDatabase(endpoint, database string) { dropDatabase(endpoint, database) }

// Response builds a Cosmos-style JSON response to r, for scripted
// transports.
func Response(r *http.Request, status int, body string, headers ...string) *http.Response {
	return response(r, status, body, headers...)
}

// WireProxy returns the endpoint of a proxy to the test server that
// applies its fixes and makes its batches stop at their first failing
// operation, for handler processes, which cannot be given a transport.
func WireProxy(t testing.TB) string { return startProxy(t, wire(t)) }
