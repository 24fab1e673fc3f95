package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The house's limits on a file and a function, outside tests: past
// them a reader no longer sees a room or a step whole.
const (
	maxFileLines = 600
	maxFuncLines = 80
)

// TestRoomsStaySmall fails on a non-test Go file over maxFileLines
// lines or a function over maxFuncLines, naming each.
func TestRoomsStaySmall(t *testing.T) {
	root := filepath.Join("..", "..")
	out, err := exec.Command("git", "-C", root, "ls-files", "*.go").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	fs := token.NewFileSet()
	for _, f := range strings.Fields(string(out)) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fs, filepath.Join(root, f), nil, 0)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if n := fs.Position(file.End()).Line; n > maxFileLines {
			t.Errorf("%s: %d lines, over %d: split it where its name stops explaining it", f, n, maxFileLines)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			if n := fs.Position(fn.End()).Line - fs.Position(fn.Pos()).Line + 1; n > maxFuncLines {
				t.Errorf("%s: func %s: %d lines, over %d", f, fn.Name.Name, n, maxFuncLines)
			}
		}
	}
}
