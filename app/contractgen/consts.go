package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// constants finds the string constants the module's packages declare of
// their own named types: the values of Go's enums, read from the source
// (reflection cannot list a type's constants).
type constants struct {
	root, module string
	byPkg        map[string]map[string][]string // package path → type name → values in declaration order
}

func newConstants(root string) (*constants, error) {
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return &constants{root: root, module: strings.TrimSpace(m), byPkg: map[string]map[string][]string{}}, nil
		}
	}
	return nil, fmt.Errorf("%s/go.mod names no module", root)
}

// of lists the constants of the named string type t, none when its package
// declares none (or is not the module's).
func (c *constants) of(t reflect.Type) ([]string, error) {
	pkg := t.PkgPath()
	rel, ok := strings.CutPrefix(pkg, c.module)
	if !ok || (rel != "" && !strings.HasPrefix(rel, "/")) {
		return nil, nil
	}
	if _, read := c.byPkg[pkg]; !read {
		m, err := readConstants(filepath.Join(c.root, filepath.FromSlash(strings.TrimPrefix(rel, "/"))))
		if err != nil {
			return nil, fmt.Errorf("constants of %s: %w", pkg, err)
		}
		c.byPkg[pkg] = m
	}
	return c.byPkg[pkg][t.Name()], nil
}

// readConstants reads `const Name Type = "value"` declarations of the
// package in dir (tests left out), by type name; a constant of one of the
// package's string types whose value is not a string literal is an error, so
// that no value goes missing from the union.
func readConstants(dir string) (map[string][]string, error) {
	fset, parsed, err := parsePackage(dir)
	if err != nil {
		return nil, err
	}
	stringTypes := map[string]bool{}
	for _, file := range parsed {
		for _, d := range file.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
				for _, sp := range gd.Specs {
					ts := sp.(*ast.TypeSpec)
					if id, ok := ts.Type.(*ast.Ident); ok && id.Name == "string" && ts.Assign == 0 {
						stringTypes[ts.Name.Name] = true
					}
				}
			}
		}
	}
	out := map[string][]string{}
	for _, file := range parsed {
		for _, d := range file.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, sp := range gd.Specs {
				vs := sp.(*ast.ValueSpec)
				id, ok := vs.Type.(*ast.Ident)
				if !ok || !stringTypes[id.Name] {
					continue
				}
				for i, n := range vs.Names {
					var lit *ast.BasicLit
					if i < len(vs.Values) {
						lit, _ = vs.Values[i].(*ast.BasicLit)
					}
					if lit == nil || lit.Kind != token.STRING {
						return nil, fmt.Errorf("%s: constant %s of %s is not a string literal", fset.Position(n.Pos()), n.Name, id.Name)
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						return nil, err
					}
					if !slices.Contains(out[id.Name], v) {
						out[id.Name] = append(out[id.Name], v)
					}
				}
			}
		}
	}
	return out, nil
}

// parsePackage parses the Go files of the package in dir, its tests left out.
func parsePackage(dir string) (*token.FileSet, []*ast.File, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
	}
	return fset, files, nil
}
