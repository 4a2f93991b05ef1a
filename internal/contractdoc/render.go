package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/taskrouting/taskrouting-go/api"
)

// The markers around the generated section of docs/contract.md.
const (
	beginMarker = "<!-- BEGIN GENERATED OPERATIONS: go run ./internal/contractdoc -->"
	endMarker   = "<!-- END GENERATED OPERATIONS -->"
)

var planes = []string{"workspace", "worker", "supervisor"}

var httpMethods = []string{"get", "put", "post", "delete", "patch"}

// operation is what a table row shows of one operation id.
type operation struct {
	id, plane, group, method, path string
	mock                           bool
	source                         string
	decided                        []string
}

func pagePath(root string) string { return filepath.Join(root, "docs", "contract.md") }

// regenerate returns page with its generated section rebuilt from api/openapi.json and the
// client's API lines found under root.
func regenerate(root string, page []byte) ([]byte, error) {
	start := bytes.Index(page, []byte(beginMarker))
	end := bytes.Index(page, []byte(endMarker))
	if start < 0 || end < start {
		return nil, errors.New("docs/contract.md has no " + beginMarker + " ... " + endMarker + " section")
	}
	ops, err := operations(api.OpenAPI())
	if err != nil {
		return nil, err
	}
	methods, err := clientMethods(root)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Write(page[:start+len(beginMarker)])
	out.WriteString("\n")
	out.WriteString(tables(ops, methods))
	out.Write(page[end:])
	return out.Bytes(), nil
}

// operations lists every operation id of the document, aliases included, in path order.
func operations(doc []byte) ([]operation, error) {
	var root struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(doc, &root); err != nil {
		return nil, fmt.Errorf("api/openapi.json: %w", err)
	}
	var ops []operation
	for path, item := range root.Paths {
		for method, raw := range item {
			if !slices.Contains(httpMethods, method) {
				continue
			}
			var o struct {
				ID          string   `json:"operationId"`
				Tags        []string `json:"tags"`
				Plane       string   `json:"x-plane"`
				Source      string   `json:"x-source"`
				Decided     []string `json:"x-decided"`
				Mock        bool     `json:"x-mock"`
				Aliases     []string `json:"x-operation-aliases"`
				AliasStatus map[string]struct {
					Mock bool `json:"x-mock"`
				} `json:"x-alias-status"`
			}
			if err := json.Unmarshal(raw, &o); err != nil {
				return nil, fmt.Errorf("%s %s: %w", method, path, err)
			}
			if len(o.Tags) != 1 {
				return nil, fmt.Errorf("%s: want one tag (the catalogue group), have %d", o.ID, len(o.Tags))
			}
			op := operation{id: o.ID, plane: o.Plane, group: o.Tags[0], method: strings.ToUpper(method), path: path,
				mock: o.Mock, source: o.Source, decided: o.Decided}
			ops = append(ops, op)
			for _, alias := range o.Aliases {
				a := op
				a.id, a.mock, a.decided = alias, o.AliasStatus[alias].Mock, []string{"Same method and path as " + o.ID + "."}
				ops = append(ops, a)
			}
		}
	}
	slices.SortFunc(ops, func(a, b operation) int {
		return strings.Compare(a.group+" "+a.path+" "+a.method+" "+a.id, b.group+" "+b.path+" "+b.method+" "+b.id)
	})
	return ops, nil
}

// tables renders one table per plane, grouped by catalogue group.
func tables(ops []operation, methods map[string][]string) string {
	var b strings.Builder
	b.WriteString("\n")
	for _, plane := range planes {
		n, client, mock := 0, 0, 0
		for _, op := range ops {
			if op.plane == plane {
				n++
				if len(methods[op.id]) > 0 {
					client++
				}
				if op.mock {
					mock++
				}
			}
		}
		fmt.Fprintf(&b, "### %s plane: %d operations, %d in the client, %d in the mock server\n\n", title(plane), n, client, mock)
		b.WriteString("| group | operation | method and path | Go client | mock server | source | decided here |\n")
		b.WriteString("| --- | --- | --- | --- | --- | --- | --- |\n")
		for _, op := range ops {
			if op.plane != plane {
				continue
			}
			goMethods := "—"
			if m := methods[op.id]; len(m) > 0 {
				goMethods = "`" + strings.Join(m, "`, `") + "`"
			}
			mock := "—"
			if op.mock {
				mock = "served"
			}
			fmt.Fprintf(&b, "| %s | `%s` | `%s %s` | %s | %s | %s | %s |\n", op.group, op.id, op.method, op.path,
				goMethods, mock, op.source, cell(op.decided))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func title(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// cell joins rules for a table cell, escaping what Markdown tables treat specially.
func cell(rules []string) string {
	if len(rules) == 0 {
		return ""
	}
	return strings.ReplaceAll(strings.Join(rules, " "), "|", "\\|")
}
