// Package api holds openapi.json, this repository's OpenAPI 3.1 description of the hosted
// task-routing platform's /v1: every HTTP operation of the platform's operation catalogue on
// the workspace, worker and supervisor planes, with request schemas at the platform's limits
// and a response schema for every status each operation answers.
//
// The document is the single source of truth for the wire: the mock server validates requests
// against it, tests validate the mock server's answers and the client's requests against it,
// and the operation tables of docs/contract.md are generated from it
// (go run ./internal/contractdoc). Extension members say where each rule comes from and what
// this repository implements: x-plane, x-source, x-decided, x-client and x-mock on every
// operation; docs/contract.md ("How api/openapi.json is organised") lists them all.
package api

import _ "embed"

//go:embed openapi.json
var openAPI []byte

// OpenAPI returns the document's bytes. Each call returns a fresh copy, so a caller may change
// it without affecting anyone else.
func OpenAPI() []byte {
	return append([]byte(nil), openAPI...)
}
