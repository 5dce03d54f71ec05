package docgen

import (
	"encoding/json"
	"fmt"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/token"
)

// Field is one key of a schema as the reference shows it.
type Field struct {
	Key     string // dotted path: budgets.max_wait, agents.NAME.timeout
	Type    string // in words: "duration", "integer ≥ 1", "none | commit | pr"
	Default string // "" when there is none
	Doc     string // the doc comment of the field in the .cue file
}

// Fields lists the keys of the struct v depth-first, each prefixed with
// prefix. A field whose value is a struct with fields of its own is walked
// rather than listed (its own doc comment is returned in intro, keyed by
// its path); a list of structs is walked as KEY[].
func Fields(v cue.Value, prefix string) (fields []Field, intro map[string]string) {
	intro = map[string]string{}
	walk(v, prefix, &fields, intro)
	return fields, intro
}

func walk(v cue.Value, prefix string, out *[]Field, intro map[string]string) {
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return
	}
	for it.Next() {
		sel := it.Selector()
		if sel.IsDefinition() || sel.PkgPath() != "" {
			continue
		}
		key := prefix + strings.TrimSuffix(sel.String(), "?")
		child := it.Value()
		name := strings.TrimSuffix(sel.String(), "?")
		doc := strings.TrimPrefix(DocOf(child), name+": ")
		if strings.HasPrefix(doc, name+" ") {
			doc = "`" + name + "`" + doc[len(name):]
		}
		if child.IncompleteKind() == cue.StructKind && hasFields(child) {
			intro[key] = doc
			walk(child, key+".", out, intro)
			continue
		}
		if child.IncompleteKind() == cue.ListKind {
			if elem := child.LookupPath(cue.MakePath(cue.AnyIndex)); elem.Exists() && elem.IncompleteKind() == cue.StructKind && hasFields(elem) {
				intro[key] = doc
				walk(elem, key+"[].", out, intro)
				continue
			}
		}
		f := Field{Key: key, Type: TypeOf(child), Doc: doc}
		if !it.IsOptional() {
			f.Default = DefaultOf(child)
		}
		*out = append(*out, f)
	}
}

func hasFields(v cue.Value) bool {
	it, err := v.Fields(cue.Optional(true))
	return err == nil && it.Next()
}

// DocOf is the doc comment of a field's value, on one line.
func DocOf(v cue.Value) string {
	var parts []string
	for _, g := range v.Doc() {
		parts = append(parts, strings.Join(strings.Fields(g.Text()), " "))
	}
	return strings.Join(parts, " ")
}

// DefaultOf is v's default, as a reader writes it in YAML, or "".
func DefaultOf(v cue.Value) string {
	d, ok := v.Default()
	if !ok {
		d = v
	}
	if !d.IsConcrete() {
		return ""
	}
	if d.IncompleteKind() == cue.StructKind {
		return ""
	}
	raw, err := d.MarshalJSON()
	if err != nil {
		return ""
	}
	var x any
	if json.Unmarshal(raw, &x) != nil {
		return ""
	}
	return yamlish(x)
}

func yamlish(x any) string {
	switch x := x.(type) {
	case string:
		if x == "" {
			return `""`
		}
		return x
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = yamlish(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	default:
		return fmt.Sprint(x)
	}
}

// TypeOf says in words what a field accepts, from its declaration. A
// definition named there that is not in named and is a disjunction of
// strings, such as #Method (generated from a registry), is said by its
// strings.
func TypeOf(v cue.Value) string {
	if f, ok := v.Source().(*ast.Field); ok {
		return typer{scope: v}.expr(f.Value)
	}
	return kindType(v.IncompleteKind())
}

var ops = map[token.Token]string{token.GEQ: "≥", token.LEQ: "≤", token.GTR: ">", token.LSS: "<"}

// named are the schema's own definitions, in a reader's words.
var named = map[string]string{
	"#PositiveInt": "integer ≥ 1",
	"#Duration":    "duration (90s, 30m, 1h30m)",
	"#Seconds":     "seconds",
	"#RelPath":     "relative path",
	"#Name":        "agent name",
	"#Login":       "GitHub login",
	"#Promise":     "promise text",
	"#EnvName":     "variable name, or PREFIX_*",
	"#Tier":        "auto | verify",
	"#PresetName":  "claude | codex | gemini",
	"#Criteria":    "stage criteria",
	"#Completion":  "completion spec",
	"#Contract":    "contract",
	"#Agent":       "agent",
	"#VerifyStage": "verification stage",
	"_":            "the method's options",
	"int":          "integer",
	"number":       "number",
	"string":       "string",
	"bool":         "true | false",
	"null":         "null",
}

// typer says an expression of the schema in words; scope is the value
// in which its identifiers are resolved.
type typer struct{ scope cue.Value }

func (t typer) expr(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		if s, ok := named[e.Name]; ok {
			return s
		}
		if s, ok := t.strings(e); ok {
			return s
		}
		return e.Name
	case *ast.BasicLit:
		return strings.Trim(e.Value, `"`)
	case *ast.UnaryExpr:
		if e.Op == token.MUL { // a default, said in its own column
			return ""
		}
		return e.Op.String() + t.expr(e.X)
	case *ast.BinaryExpr:
		switch e.Op {
		case token.OR:
			var alts []string
			for _, a := range []ast.Expr{e.X, e.Y} {
				if s := t.expr(a); s != "" && !contains(alts, s) {
					alts = append(alts, s)
				}
			}
			return strings.Join(alts, " | ")
		case token.AND:
			left, right := t.expr(e.X), t.expr(e.Y)
			if bound, ok := e.Y.(*ast.UnaryExpr); ok && (bound.Op == token.GEQ || bound.Op == token.LEQ || bound.Op == token.GTR || bound.Op == token.LSS) {
				return left + " " + ops[bound.Op] + " " + t.expr(bound.X)
			}
			if strings.HasPrefix(right, "!=") || strings.HasPrefix(right, "=~") || strings.HasPrefix(right, "!~") || right == "time.Duration" {
				return left // a pattern or a non-empty check: the type is the left side
			}
			if left == "string" {
				return right
			}
			return left
		}
	case *ast.ParenExpr:
		return t.expr(e.X)
	case *ast.ListLit:
		if len(e.Elts) == 0 {
			return "list"
		}
		last := e.Elts[len(e.Elts)-1]
		if el, ok := last.(*ast.Ellipsis); ok {
			elem := t.expr(el.Type)
			if len(e.Elts) > 1 {
				return "non-empty list of " + elem
			}
			return "list of " + elem
		}
		return "list"
	case *ast.StructLit:
		for _, d := range e.Elts {
			if f, ok := d.(*ast.Field); ok {
				if _, pattern := f.Label.(*ast.ListLit); pattern {
					return "map of " + t.expr(f.Value)
				}
			}
		}
		return "mapping"
	case *ast.SelectorExpr:
		if id, ok := e.Sel.(*ast.Ident); ok {
			return t.expr(e.X) + "." + id.Name
		}
	}
	return "value"
}

// strings says the definition id as its alternatives, "a | b | c", when
// it is a disjunction of strings.
func (t typer) strings(id *ast.Ident) (string, bool) {
	if !strings.HasPrefix(id.Name, "#") || !t.scope.Exists() {
		return "", false
	}
	// Scope needs the scope's own context (another one panics), and every
	// value here comes from the one context that compiled the schema: the
	// case where the deprecated Value.Context is still defined.
	//lint:ignore SA1019 one context: see above
	v := t.scope.Context().BuildExpr(ast.NewIdent(id.Name), cue.Scope(t.scope))
	op, args := v.Expr()
	if op != cue.OrOp {
		args = []cue.Value{v}
	}
	alts := make([]string, len(args))
	for i, a := range args {
		s, err := a.String()
		if err != nil {
			return "", false
		}
		alts[i] = s
	}
	return strings.Join(alts, " | "), true
}

func kindType(k cue.Kind) string {
	switch k {
	case cue.StringKind:
		return "string"
	case cue.IntKind:
		return "integer"
	case cue.BoolKind:
		return "true | false"
	case cue.ListKind:
		return "list"
	case cue.StructKind:
		return "mapping"
	}
	return k.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
