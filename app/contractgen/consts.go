package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"iter"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// source reads from the module's Go source what reflection cannot give: the
// string constants its packages declare of their own named types (the values
// of Go's enums) and the doc comments of its types and their fields.
type source struct {
	root, module string
	byPkg        map[string]*pkgSource // by package path
}

type pkgSource struct {
	fset  *token.FileSet
	files []*ast.File
	// consts, read on first use: type name → values in declaration order.
	consts map[string][]string
	docs   map[string]string // type name, or type name.field name → doc comment
}

func newSource(root string) (*source, error) {
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return &source{root: root, module: strings.TrimSpace(m), byPkg: map[string]*pkgSource{}}, nil
		}
	}
	return nil, fmt.Errorf("%s/go.mod names no module", root)
}

// pkg is what the source of t's package says, nil when the package is not
// the module's.
func (s *source) pkg(t reflect.Type) (*pkgSource, error) {
	pkg := t.PkgPath()
	rel, ok := strings.CutPrefix(pkg, s.module)
	if !ok || (rel != "" && !strings.HasPrefix(rel, "/")) {
		return nil, nil
	}
	if p, read := s.byPkg[pkg]; read {
		return p, nil
	}
	fset, files, err := parsePackage(filepath.Join(s.root, filepath.FromSlash(strings.TrimPrefix(rel, "/"))))
	if err != nil {
		return nil, fmt.Errorf("source of %s: %w", pkg, err)
	}
	p := &pkgSource{fset: fset, files: files, docs: docsOf(files)}
	s.byPkg[pkg] = p
	return p, nil
}

// constants lists the constants of the named string type t, none when its
// package declares none (or is not the module's).
func (s *source) constants(t reflect.Type) ([]string, error) {
	p, err := s.pkg(t)
	if p == nil {
		return nil, err
	}
	if p.consts == nil {
		if p.consts, err = constantsOf(p.fset, p.files); err != nil {
			return nil, fmt.Errorf("constants of %s: %w", t.PkgPath(), err)
		}
	}
	return p.consts[t.Name()], nil
}

// doc is the doc comment of the named type t, "" when it has none (or its
// package is not the module's).
func (s *source) doc(t reflect.Type) (string, error) {
	return s.docIn(t, t.Name())
}

// fieldDoc is the doc comment (or else the line comment) of the struct t's
// field named field, "" when it has none.
func (s *source) fieldDoc(t reflect.Type, field string) (string, error) {
	return s.docIn(t, t.Name()+"."+field)
}

// docIn is the doc comment of key (Type or Type.Field) in t's package.
func (s *source) docIn(t reflect.Type, key string) (string, error) {
	p, err := s.pkg(t)
	if p == nil {
		return "", err
	}
	return p.docs[key], nil
}

// docsOf reads the doc comments of the types files declare, by name, and of
// their structs' fields, by Type.Field.
func docsOf(files []*ast.File) map[string]string {
	out := map[string]string{}
	for gd, sp := range specs(files, token.TYPE) {
		ts := sp.(*ast.TypeSpec)
		doc := ts.Doc
		if doc == nil && len(gd.Specs) == 1 {
			doc = gd.Doc // type T … rather than type ( T … )
		}
		if text := strings.TrimSpace(doc.Text()); text != "" {
			out[ts.Name.Name] = text
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			continue
		}
		for _, f := range st.Fields.List {
			doc := f.Doc
			if doc == nil {
				doc = f.Comment
			}
			text := strings.TrimSpace(doc.Text())
			for _, n := range f.Names {
				if text != "" {
					out[ts.Name.Name+"."+n.Name] = text
				}
			}
		}
	}
	return out
}

// specs are the specs of files' tok declarations (type, const, …), each
// with the declaration that holds it.
func specs(files []*ast.File, tok token.Token) iter.Seq2[*ast.GenDecl, ast.Spec] {
	return func(yield func(*ast.GenDecl, ast.Spec) bool) {
		for _, file := range files {
			for _, d := range file.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != tok {
					continue
				}
				for _, sp := range gd.Specs {
					if !yield(gd, sp) {
						return
					}
				}
			}
		}
	}
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
	return constantsOf(fset, parsed)
}

// constantsOf is readConstants of the parsed files of a package.
func constantsOf(fset *token.FileSet, parsed []*ast.File) (map[string][]string, error) {
	stringTypes := map[string]bool{}
	for _, sp := range specs(parsed, token.TYPE) {
		ts := sp.(*ast.TypeSpec)
		if id, ok := ts.Type.(*ast.Ident); ok && id.Name == "string" && ts.Assign == 0 {
			stringTypes[ts.Name.Name] = true
		}
	}
	out := map[string][]string{}
	for _, sp := range specs(parsed, token.CONST) {
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
	return out, nil
}

// parsePackage parses the Go files of the package in dir with their
// comments, its tests left out.
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
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
	}
	return fset, files, nil
}
