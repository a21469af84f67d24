// Package client is a Go client of the todo API, generated from
// openapi.json by oapi-codegen (go generate ./client); a test fails when
// regenerating it would change it, so it always matches the contract the
// handler serves at /api/openapi.json.
package client

//go:generate go tool oapi-codegen -config oapi-codegen.yaml -o client.gen.go ../openapi.json
