package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// apiLine is the client's doc comment convention: "API: tasks.create, POST /tasks".
var apiLine = regexp.MustCompile(`^API: ([A-Za-z0-9_.]+), [A-Z]+ /\S*$`)

// clientMethods maps each operation id to the client methods whose doc comments carry its API
// line, as "Receiver.Method", sorted.
func clientMethods(root string) (map[string][]string, error) {
	files, err := parseRootPackage(root)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, file := range files {
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Doc == nil {
				continue
			}
			for _, c := range fn.Doc.List {
				m := apiLine.FindStringSubmatch(strings.TrimSpace(strings.TrimPrefix(c.Text, "//")))
				if m != nil {
					out[m[1]] = append(out[m[1]], receiver(fn)+fn.Name.Name)
				}
			}
		}
	}
	for id := range out {
		slices.Sort(out[id])
	}
	return out, nil
}

// receiver names a method's receiver type with a trailing dot ("TasksService."), or "" for a
// function.
func receiver(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return ""
	}
	t := fn.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "."
	}
	return ""
}

// parseRootPackage parses the non-test Go files of the root package, comments included.
func parseRootPackage(root string) ([]*ast.File, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(root, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		if f.Name.Name == "taskrouting" {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no package taskrouting", root)
	}
	return files, nil
}
