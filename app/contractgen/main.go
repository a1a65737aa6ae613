// Command contractgen writes the UI's contract with the backend,
// frontend/src/lib/contract.gen.ts: a TypeScript type for every Go type the
// bound methods of app.App take or give, as encoding/json writes them
// (a nil slice, map or pointer is null; omitempty makes a field optional and
// never null, since encoding/json leaves out a nil one), a string-literal
// union for each named string type whose package declares constants of it,
// each field with its Go doc comment, the methods themselves (AppMethods),
// the events (EventPayloads, from app.Events), and for every result type that
// can hold a null slice or map a normalize function giving Normalized<T>: the
// same value with those as empty ones. Next to it, frontend/src/lib/types.gen.ts gives each of those
// types as the views read it, under its Go name and with its doc comment
// (api.ts re-exports them). `make generate` runs it; CI fails when a file it
// writes differs from the one checked in.
//
// Why not a ready generator: Wails' `wails generate module` builds and runs
// the app to reflect on its bindings and writes classes that do not model
// JSON's null; tygo is not served by the module proxy here. This reads the
// same reflection the HTTP door calls through, so the two cannot differ.
package main

import (
	"bytes"
	"encoding"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"checkpoint-explorer/app"
)

// The files contractgen writes.
const (
	contractFile = "contract.gen.ts"
	typesFile    = "types.gen.ts"
)

func main() {
	dir := flag.String("dir", "frontend/src/lib", "the directory to write "+contractFile+" and "+typesFile+" in")
	root := flag.String("root", ".", "the module's directory (for parameter names, constants and doc comments)")
	flag.Parse()
	if err := write(*root, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "contractgen:", err)
		os.Exit(1)
	}
}

// write writes the contract of the module in root into dir.
func write(root, dir string) error {
	files, err := generateFrom(root)
	if err != nil {
		return err
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// generateFrom is the contract of the module in root: each file's content
// by its name.
func generateFrom(root string) (map[string][]byte, error) {
	names, err := paramNames(filepath.Join(root, "app"))
	if err != nil {
		return nil, err
	}
	src, err := newSource(root)
	if err != nil {
		return nil, err
	}
	return generate(names, src)
}

// paramNames reads the parameter names of App's methods from the source
// (reflection has only their types).
func paramNames(dir string) (map[string][]string, error) {
	_, files, err := parsePackage(dir)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, file := range files {
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || !fd.Name.IsExported() || len(fd.Recv.List) != 1 {
				continue
			}
			if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); !ok || fmt.Sprint(star.X) != "App" {
				continue
			}
			var ps []string
			for _, p := range fd.Type.Params.List {
				for _, n := range p.Names {
					ps = append(ps, n.Name)
				}
			}
			out[fd.Name.Name] = ps
		}
	}
	return out, nil
}

var (
	errorType     = reflect.TypeFor[error]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	textType      = reflect.TypeFor[encoding.TextMarshaler]()
)

// gen collects the named types met, and how each is called in TypeScript.
type gen struct {
	// structs maps each struct met to whether only arguments reach it (those
	// need no normalize function). An argument's type is written as
	// encoding/json would write it too: the UI sends every field but those
	// Go tags omitempty, although Go would read a missing one as its zero value.
	structs map[reflect.Type]bool
	// enums are the named string types met with the values their package
	// declares as constants (none: a plain string).
	enums map[reflect.Type][]string
	src   *source
	names map[reflect.Type]string
	// needs memoises needsNorm.
	needs map[reflect.Type]bool
}

// normalizedType is Normalized<T>, written out as it is.
const normalizedType = `/**
 * Normalized<T> is T as the views read it: every slice or map Go may send as
 * null (a field without omitempty) is an empty one instead, at any depth.
 * Pointers stay nullable and omitted fields optional: encoding/json leaves out
 * an empty omitempty slice or map, so absent means empty there. The
 * normalize<Type> functions below make it, and the compiler checks them
 * against it. They also give the slices and maps of a value that is missing
 * where Go always sends one (the development fake, a test's stub).
 */
export type Normalized<T> = T extends readonly (infer E)[]
  ? Normalized<E>[]
  : T extends object
    ? { [K in keyof T]: NormalizedField<T[K]> }
    : T;
type NormalizedField<V> = [NonNullable<V>] extends [readonly unknown[]]
  ? Normalized<NonNullable<V>> | Extract<V, undefined>
  : string extends keyof NonNullable<V>
    ? Normalized<NonNullable<V>> | Extract<V, undefined>
    : Normalized<V>;

`

func generate(params map[string][]string, src *source) (map[string][]byte, error) {
	g := &gen{structs: map[reflect.Type]bool{}, enums: map[reflect.Type][]string{}, src: src, needs: map[reflect.Type]bool{}}
	t := reflect.TypeFor[*app.App]()
	type method struct {
		name    string
		params  []reflect.Type
		result  reflect.Type // nil: none
		argName []string
	}
	var methods []method
	for i := range t.NumMethod() {
		m := t.Method(i)
		mt := m.Type
		me := method{name: m.Name, argName: params[m.Name]}
		for k := 1; k < mt.NumIn(); k++ {
			me.params = append(me.params, mt.In(k))
		}
		switch {
		case mt.NumOut() == 0:
		case mt.NumOut() == 1 && mt.Out(0) == errorType:
		case mt.NumOut() == 1:
			me.result = mt.Out(0)
		case mt.NumOut() == 2 && mt.Out(1) == errorType:
			me.result = mt.Out(0)
		default:
			return nil, fmt.Errorf("App.%s: results %v: the doors answer one value and an error", m.Name, mt)
		}
		if me.result != nil {
			if err := g.collect(me.result, false); err != nil {
				return nil, err
			}
		}
		if len(me.argName) != len(me.params) {
			return nil, fmt.Errorf("App.%s: %d parameter names in the source for %d parameters", m.Name, len(me.argName), len(me.params))
		}
		methods = append(methods, me)
	}
	events := map[reflect.Type]bool{}
	for _, e := range app.Events {
		events[reflect.TypeOf(e)] = true
		if err := g.collect(reflect.TypeOf(e), false); err != nil {
			return nil, err
		}
	}
	for _, m := range methods {
		for _, p := range m.params {
			if err := g.collect(p, true); err != nil {
				return nil, err
			}
		}
	}
	g.name()

	var b bytes.Buffer
	b.WriteString("// Code generated by app/contractgen (make generate); DO NOT EDIT.\n")
	b.WriteString("// The backend's types as the doors send them in JSON: null where Go has a nil slice,\n")
	b.WriteString("// map or pointer; ? where a field is omitted when empty; a union of the constants Go\n")
	b.WriteString("// declares for a named string type.\n")
	b.WriteString("/* eslint-disable */\n\n")
	types := make([]reflect.Type, 0, len(g.structs)+len(g.enums))
	for st := range g.structs {
		types = append(types, st)
	}
	for et, vs := range g.enums {
		if len(vs) > 0 {
			types = append(types, et)
		}
	}
	sort.Slice(types, func(i, j int) bool { return g.names[types[i]] < g.names[types[j]] })
	for _, st := range types {
		if st.Kind() == reflect.String {
			var vs []string
			for _, v := range g.enums[st] {
				vs = append(vs, tsString(v))
			}
			fmt.Fprintf(&b, "/** %s (its constants) */\nexport type %s = %s;\n", st.String(), g.names[st], strings.Join(vs, " | "))
			fmt.Fprintf(&b, "export const %sValues: readonly %s[] = [%s];\n\n", g.names[st], g.names[st], strings.Join(vs, ", "))
			continue
		}
		if g.structs[st] {
			fmt.Fprintf(&b, "/** %s (an argument) */\n", st.String())
		} else {
			fmt.Fprintf(&b, "/** %s */\n", st.String())
		}
		fields := g.fields(st)
		if len(fields) == 0 {
			fmt.Fprintf(&b, "export type %s = Record<string, never>;\n\n", g.names[st])
			continue
		}
		fmt.Fprintf(&b, "export interface %s {\n", g.names[st])
		for _, f := range fields {
			doc, err := g.src.fieldDoc(f.in, f.goName)
			if err != nil {
				return nil, err
			}
			writeDoc(&b, "  ", doc)
			fmt.Fprintf(&b, "  %s%s: %s;\n", f.name, map[bool]string{true: "?", false: ""}[f.optional], f.ts)
		}
		b.WriteString("}\n\n")
	}
	b.WriteString("/** The methods the window binds and serve answers at POST /api/app.App.<name>. */\n")
	b.WriteString("export interface AppMethods {\n")
	for _, m := range methods {
		var args []string
		for k, p := range m.params {
			args = append(args, fmt.Sprintf("%s: %s", tsIdent(m.argName[k]), g.ts(p)))
		}
		res := "void"
		if m.result != nil {
			res = g.ts(m.result)
		}
		fmt.Fprintf(&b, "  %s(%s): Promise<%s>;\n", m.name, strings.Join(args, ", "), res)
	}
	b.WriteString("}\n\n")
	b.WriteString("/** Every event (app.Events), by name. */\n")
	b.WriteString("export interface EventPayloads {\n")
	for _, e := range app.Events {
		fmt.Fprintf(&b, "  '%s': %s;\n", e.EventName(), g.ts(reflect.TypeOf(e)))
	}
	b.WriteString("}\n\n")

	b.WriteString(normalizedType)
	views, err := g.views(types, events)
	if err != nil {
		return nil, err
	}
	structs := slices.DeleteFunc(types, func(t reflect.Type) bool { return t.Kind() != reflect.Struct || g.structs[t] || !g.needsNorm(t) })
	for _, st := range structs {
		if err := g.normalizer(&b, st); err != nil {
			return nil, err
		}
	}
	return map[string][]byte{contractFile: b.Bytes(), typesFile: views}, nil
}

// views is types.gen.ts: each of types (the contract's, in order) under its
// name, as the views read it. api.ts's wrappers normalise what a method
// answers, so a struct an answer reaches is Normalized<T>; an argument's
// struct, an event's payload (on hands it over as sent) and an enum are the
// contract's own.
func (g *gen) views(types []reflect.Type, events map[reflect.Type]bool) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by app/contractgen (make generate); DO NOT EDIT.\n")
	b.WriteString("// The contract's types as the views read them, by their names in contract.gen.ts,\n")
	b.WriteString("// each with its Go doc comment; api.ts re-exports them. What a method answers is\n")
	b.WriteString("// Normalized (api.ts's wrappers give its null slices and maps as empty ones); an\n")
	b.WriteString("// argument, an event's payload and an enum are as the contract has them.\n")
	b.WriteString("/* eslint-disable */\n")
	b.WriteString("import type * as wire from './" + strings.TrimSuffix(contractFile, ".ts") + "';\n")
	b.WriteString("import type { Normalized } from './" + strings.TrimSuffix(contractFile, ".ts") + "';\n\n")
	for _, t := range types {
		doc, err := g.src.doc(t)
		if err != nil {
			return nil, err
		}
		if doc == "" {
			doc = t.String()
		}
		writeDoc(&b, "", doc)
		view := "wire." + g.names[t]
		if t.Kind() == reflect.Struct && !g.structs[t] && !events[t] {
			view = "Normalized<" + view + ">"
		}
		fmt.Fprintf(&b, "export type %s = %s;\n\n", g.names[t], view)
	}
	return b.Bytes(), nil
}

// writeDoc writes text, if any, as a doc comment indented by indent.
func writeDoc(b *bytes.Buffer, indent, text string) {
	if text == "" {
		return
	}
	lines := strings.Split(strings.ReplaceAll(text, "*/", "*\\/"), "\n")
	if len(lines) == 1 {
		fmt.Fprintf(b, "%s/** %s */\n", indent, lines[0])
		return
	}
	b.WriteString(indent + "/**\n")
	for _, l := range lines {
		b.WriteString(strings.TrimRight(indent+" * "+l, " ") + "\n")
	}
	b.WriteString(indent + " */\n")
}

// collect records the named types t refers to; input: reached from an argument.
func (g *gen) collect(t reflect.Type, input bool) error {
	switch {
	case t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) || t.Implements(textType):
		return nil // its JSON is its own; ts gives unknown or string
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return g.collect(t.Elem(), input)
	case reflect.String:
		if t.PkgPath() == "" || t.Name() == "" {
			return nil
		}
		if _, seen := g.enums[t]; seen {
			return nil
		}
		vs, err := g.src.constants(t)
		if err != nil {
			return err
		}
		g.enums[t] = vs
	case reflect.Struct:
		if seenInput, seen := g.structs[t]; seen && (seenInput == input || !seenInput) {
			return nil
		}
		g.structs[t] = input
		for _, f := range g.rawFields(t) {
			if err := g.collect(f.Type, input); err != nil {
				return err
			}
		}
	}
	return nil
}

// name gives each struct and enum its TypeScript name: the Go name, with the
// package's in front where two packages use the same one.
func (g *gen) name() {
	byName := map[string][]reflect.Type{}
	for t := range g.structs {
		byName[t.Name()] = append(byName[t.Name()], t)
	}
	for t, vs := range g.enums {
		if len(vs) > 0 {
			byName[t.Name()] = append(byName[t.Name()], t)
		}
	}
	g.names = map[reflect.Type]string{}
	for n, ts := range byName {
		for _, t := range ts {
			if len(ts) == 1 {
				g.names[t] = n
				continue
			}
			pkg := filepath.Base(t.PkgPath())
			g.names[t] = strings.ToUpper(pkg[:1]) + pkg[1:] + n
		}
	}
}

type field struct {
	name      string
	optional  bool
	omitempty bool
	ts        string
	t         reflect.Type
	// goName is the Go field's name; in, the struct that declares it.
	goName string
	in     reflect.Type
}

// declaredField is a field of a struct or of one it embeds: in declares it.
type declaredField struct {
	reflect.StructField
	in reflect.Type
}

// rawFields are t's JSON fields, embedded structs' promoted in place.
func (g *gen) rawFields(t reflect.Type) []declaredField {
	var out []declaredField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && tag == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				out = append(out, g.rawFields(et)...)
				continue
			}
		}
		if f.IsExported() {
			out = append(out, declaredField{f, t})
		}
	}
	return out
}

func (g *gen) fields(t reflect.Type) []field {
	var out []field
	for _, f := range g.rawFields(t) {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		omitempty := slices.Contains(strings.Split(opts, ","), "omitempty")
		var ts string
		switch {
		case slices.Contains(strings.Split(opts, ","), "string"):
			ts = "string"
		case omitempty:
			// encoding/json leaves out a nil pointer, slice or map: never null.
			ts = g.tsPresent(f.Type)
		default:
			ts = g.ts(f.Type)
		}
		out = append(out, field{name: name, optional: omitempty, omitempty: omitempty, ts: ts, t: f.Type, goName: f.Name, in: f.in})
	}
	return out
}

// ownJSON: t's JSON is its own (a Marshaler or TextMarshaler).
func ownJSON(t reflect.Type) bool {
	return t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) ||
		t.Implements(textType) || reflect.PointerTo(t).Implements(textType)
}

// ts is t's TypeScript type as encoding/json writes t.
func (g *gen) ts(t reflect.Type) string {
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) {
		return "unknown"
	}
	if t.Implements(textType) || reflect.PointerTo(t).Implements(textType) {
		return "string"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		if len(g.enums[t]) > 0 {
			return g.names[t]
		}
		return "string"
	case reflect.Pointer, reflect.Slice, reflect.Map:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return "string" // base64
		}
		return g.tsPresent(t) + " | null"
	case reflect.Array:
		return group(g.ts(t.Elem())) + "[]"
	case reflect.Struct:
		return g.names[t]
	case reflect.Interface:
		return "unknown"
	}
	panic(fmt.Sprintf("contractgen: no TypeScript type for %v", t))
}

// tsPresent is t's TypeScript type when t is not nil.
func (g *gen) tsPresent(t reflect.Type) string {
	if ownJSON(t) {
		return g.ts(t)
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.ts(t.Elem())
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string" // base64
		}
		return group(g.ts(t.Elem())) + "[]"
	case reflect.Map:
		return "Record<string, " + g.ts(t.Elem()) + ">"
	}
	return g.ts(t)
}

// nullableCollection: encoding/json may write t as null, and Normalized
// makes it an empty array or object.
func nullableCollection(t reflect.Type) bool {
	if ownJSON(t) {
		return false
	}
	return t.Kind() == reflect.Map || (t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8)
}

// needsNorm: a value of t, a result's struct, can hold a null slice or map.
func (g *gen) needsNorm(t reflect.Type) bool {
	if v, ok := g.needs[t]; ok {
		return v
	}
	g.needs[t] = false // a cycle holds nothing more
	v := false
	for _, f := range g.fields(t) {
		if (!f.omitempty && nullableCollection(f.t)) || g.holdsNorm(f.t) {
			v = true
		}
	}
	g.needs[t] = v
	return v
}

// holdsNorm: t is or holds (through pointers, slices, arrays, maps) a struct that needsNorm.
func (g *gen) holdsNorm(t reflect.Type) bool {
	if ownJSON(t) {
		return false
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return g.holdsNorm(t.Elem())
	case reflect.Struct:
		return g.needsNorm(t)
	}
	return false
}

// normalizer writes normalize<Name>, which gives Normalized<Name>.
func (g *gen) normalizer(b *bytes.Buffer, t reflect.Type) error {
	n := g.names[t]
	fmt.Fprintf(b, "/** %s as Normalized<%s>. */\n", t.String(), n)
	fmt.Fprintf(b, "export function normalize%s(v: %s): Normalized<%s> {\n  return {\n    ...v,\n", n, n, n)
	for _, f := range g.fields(t) {
		e, err := g.normExpr(f.t, "v?."+f.name, "v."+f.name, f.omitempty)
		if err != nil {
			return fmt.Errorf("%v.%s: %w", t, f.name, err)
		}
		if e != "" {
			fmt.Fprintf(b, "    %s: %s,\n", f.name, e)
		}
	}
	b.WriteString("  };\n}\n\n")
	return nil
}

// normExpr is the expression normalising a field of type t, or "" when it
// needs nothing; e reads the field, tolerating a missing value, and known
// reads it where e is known to be there.
func (g *gen) normExpr(t reflect.Type, e, known string, omitempty bool) (string, error) {
	if ownJSON(t) {
		return "", nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if g.needsNorm(t) {
			return "normalize" + g.names[t] + "(" + e + ")", nil
		}
	case reflect.Pointer:
		if g.holdsNorm(t) {
			if t.Elem().Kind() != reflect.Struct {
				return "", fmt.Errorf("a pointer to %v: not normalised yet", t.Elem())
			}
			return e + " && normalize" + g.names[t.Elem()] + "(" + known + ")", nil
		}
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return "", nil
		}
		each := ""
		if g.holdsNorm(t.Elem()) {
			switch {
			case t.Elem().Kind() == reflect.Struct:
				each = ".map(normalize" + g.names[t.Elem()] + ")"
			case t.Elem().Kind() == reflect.Pointer && t.Elem().Elem().Kind() == reflect.Struct:
				each = ".map((x) => x && normalize" + g.names[t.Elem().Elem()] + "(x))"
			default:
				return "", fmt.Errorf("elements %v: not normalised yet", t.Elem())
			}
		}
		switch {
		case t.Kind() == reflect.Array:
			if each != "" {
				return e + each, nil
			}
		case omitempty:
			if each != "" {
				return e + "?" + each, nil
			}
		case each != "":
			return "(" + e + " ?? [])" + each, nil
		default:
			return e + " ?? []", nil
		}
	case reflect.Map:
		if g.holdsNorm(t.Elem()) {
			return "", fmt.Errorf("map values %v: not normalised yet", t.Elem())
		}
		if !omitempty {
			return e + " ?? {}", nil
		}
	}
	return "", nil
}

// group parenthesises a union before [].
func group(ts string) string {
	if strings.Contains(ts, " ") {
		return "(" + ts + ")"
	}
	return ts
}

// tsString is s as a TypeScript string literal.
func tsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`).Replace(s) + "'"
}

// tsIdent is a Go parameter name usable in TypeScript (in is reserved there).
func tsIdent(s string) string {
	switch s {
	case "in", "function", "default", "delete", "new", "class", "var", "enum", "export", "extends", "super", "this", "typeof", "void", "with", "yield", "let", "static", "package", "interface", "private", "protected", "public", "implements", "instanceof", "debugger", "finally", "catch", "throw", "try", "do", "while", "switch", "case":
		return s + "_"
	}
	return s
}
