package todo

import _ "embed"

// OpenAPI is the API's contract, openapi.json, built into the handler so
// that it serves the document its tests check it against.
//
//go:embed openapi.json
var OpenAPI []byte
