package deploycheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// goPackage is one directory of Go source (tests left out), parsed.
type goPackage struct {
	dir   string
	files []*ast.File
}

// sourceTree finds the Go packages of the repository's own modules, the
// ones go.work uses, by import path.
type sourceTree struct {
	tb      testing.TB
	modules map[string]string // module path -> directory
	parsed  map[string]*goPackage
}

func newSourceTree(tb testing.TB) *sourceTree {
	tb.Helper()
	root := repoRoot(tb)
	src, err := os.ReadFile(filepath.Join(root, "go.work"))
	if err != nil {
		tb.Fatal(err)
	}
	work, err := modfile.ParseWork("go.work", src, nil)
	if err != nil {
		tb.Fatal(err)
	}
	t := &sourceTree{tb: tb, modules: map[string]string{}, parsed: map[string]*goPackage{}}
	for _, use := range work.Use {
		dir := filepath.Join(root, use.Path)
		gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			tb.Fatal(err)
		}
		t.modules[modfile.ModulePath(gomod)] = dir
	}
	return t
}

// dirOf returns the directory of an import path of one of our modules, or
// "" for anyone else's package.
func (t *sourceTree) dirOf(importPath string) string {
	for mod, dir := range t.modules {
		if importPath == mod {
			return dir
		}
		if rest, ok := strings.CutPrefix(importPath, mod+"/"); ok {
			return filepath.Join(dir, filepath.FromSlash(rest))
		}
	}
	return ""
}

// pkg parses the non-test Go files of dir (a path relative to the
// repository root, or absolute).
func (t *sourceTree) pkg(dir string) *goPackage {
	t.tb.Helper()
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(repoRoot(t.tb), dir)
	}
	if p := t.parsed[dir]; p != nil {
		return p
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.tb.Fatal(err)
	}
	p := &goPackage{dir: dir}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.tb.Fatal(err)
		}
		p.files = append(p.files, f)
	}
	if len(p.files) == 0 {
		t.tb.Fatalf("no Go files in %s", dir)
	}
	t.parsed[dir] = p
	return p
}

// imports maps the names a file uses for its imports to their paths.
func imports(f *ast.File) map[string]string {
	m := map[string]string{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		m[name] = path
	}
	return m
}

// envNames is the set of environment variables a configuration reads.
type envNames struct {
	names    map[string]bool
	prefixes []string
}

func (e envNames) reads(name string) bool {
	if e.names[name] {
		return true
	}
	for _, p := range e.prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// configEnv returns what the configuration of the command in cmdDir reads,
// the way pkg/config.Load does: the env tags of the struct types declared
// in the command's package and of the struct types their fields hold
// (followed into our own modules), NAME_FILE beside each secret. The
// standard OTEL_* variables are read by the OpenTelemetry SDK the services
// start.
func configEnv(tb testing.TB, cmdDir string) envNames {
	tb.Helper()
	tree := newSourceTree(tb)
	env := envNames{names: map[string]bool{}, prefixes: []string{"OTEL_"}}
	seen := map[string]bool{}
	var walkStruct func(st *ast.StructType, f *ast.File, p *goPackage)
	var walkType func(expr ast.Expr, f *ast.File, p *goPackage)
	walkType = func(expr ast.Expr, f *ast.File, p *goPackage) {
		switch e := expr.(type) {
		case *ast.StarExpr:
			walkType(e.X, f, p)
		case *ast.StructType:
			walkStruct(e, f, p)
		case *ast.Ident:
			walkNamed(tb, p, e.Name, seen, walkStruct)
		case *ast.SelectorExpr:
			x, ok := e.X.(*ast.Ident)
			if !ok {
				return
			}
			if dir := tree.dirOf(imports(f)[x.Name]); dir != "" {
				walkNamed(tb, tree.pkg(dir), e.Sel.Name, seen, walkStruct)
			}
		}
	}
	walkStruct = func(st *ast.StructType, f *ast.File, p *goPackage) {
		for _, field := range st.Fields.List {
			if field.Tag != nil {
				raw, _ := strconv.Unquote(field.Tag.Value)
				tag := reflect.StructTag(raw)
				if name := tag.Get("env"); name != "" {
					env.names[name] = true
					if tag.Get("secret") == "true" {
						env.names[name+"_FILE"] = true
					}
					continue
				}
			}
			walkType(field.Type, f, p)
		}
	}
	cmd := tree.pkg(cmdDir)
	for _, f := range cmd.files {
		for _, decl := range f.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
				for _, spec := range gd.Specs {
					walkNamed(tb, cmd, spec.(*ast.TypeSpec).Name.Name, seen, walkStruct)
				}
			}
		}
	}
	if len(env.names) == 0 {
		tb.Fatalf("%s: no struct field with an env tag", cmdDir)
	}
	return env
}

// walkNamed walks the struct type name declared in p, once.
func walkNamed(tb testing.TB, p *goPackage, name string, seen map[string]bool,
	walkStruct func(*ast.StructType, *ast.File, *goPackage)) {
	tb.Helper()
	key := p.dir + "." + name
	if seen[key] {
		return
	}
	seen[key] = true
	for _, f := range p.files {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				if st, ok := ts.Type.(*ast.StructType); ok && ts.Name.Name == name {
					walkStruct(st, f, p)
				}
			}
		}
	}
}

// getRoutes returns the GET routes the command in cmdDir registers: every
// `x.GET("/path", ...)` in its package and the packages of our modules it
// imports, directly or not, with the prefix of a gin route group
// (`api := r.Group("/api")`) joined.
func getRoutes(tb testing.TB, cmdDir string) map[string]bool {
	tb.Helper()
	tree := newSourceTree(tb)
	routes := map[string]bool{}
	visited := map[string]bool{}
	var visit func(p *goPackage)
	visit = func(p *goPackage) {
		if visited[p.dir] {
			return
		}
		visited[p.dir] = true
		for _, f := range p.files {
			groups := map[string]string{} // variable -> path prefix
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.AssignStmt:
					if len(n.Lhs) == 1 && len(n.Rhs) == 1 {
						lhs, ok := n.Lhs[0].(*ast.Ident)
						if recv, path, ok2 := call(n.Rhs[0], "Group"); ok && ok2 {
							groups[lhs.Name] = groups[recv] + path
						}
					}
				case *ast.CallExpr:
					if recv, path, ok := call(n, "GET"); ok {
						routes[groups[recv]+path] = true
					}
				}
				return true
			})
			for _, path := range imports(f) {
				if dir := tree.dirOf(path); dir != "" {
					visit(tree.pkg(dir))
				}
			}
		}
	}
	visit(tree.pkg(cmdDir))
	return routes
}

// call matches recv.method("literal", ...) and returns recv's name (empty
// when it is no plain identifier) and the literal.
func call(expr ast.Expr, method string) (recv, lit string, ok bool) {
	c, isCall := expr.(*ast.CallExpr)
	if !isCall || len(c.Args) == 0 {
		return "", "", false
	}
	sel, isSel := c.Fun.(*ast.SelectorExpr)
	if !isSel || sel.Sel.Name != method {
		return "", "", false
	}
	bl, isLit := c.Args[0].(*ast.BasicLit)
	if !isLit || bl.Kind != token.STRING {
		return "", "", false
	}
	lit, err := strconv.Unquote(bl.Value)
	if err != nil || !strings.HasPrefix(lit, "/") {
		return "", "", false
	}
	if id, isID := sel.X.(*ast.Ident); isID {
		recv = id.Name
	}
	return recv, lit, true
}

// Caddyfile placeholders that read the environment: {$NAME} and
// {$NAME:default} when the file is adapted, {env.NAME} at run time.
var caddyPlaceholder = regexp.MustCompile(`\{(?:\$|env\.)([A-Za-z_][A-Za-z0-9_]*)`)

// caddyEnv returns the environment variables a Caddyfile reads: its
// placeholders, and the standard OTEL_* variables Caddy's tracing reads.
func caddyEnv(tb testing.TB, caddyfile string) envNames {
	tb.Helper()
	env := envNames{names: map[string]bool{}, prefixes: []string{"OTEL_"}}
	for _, m := range caddyPlaceholder.FindAllStringSubmatch(caddyfile, -1) {
		env.names[m[1]] = true
	}
	if len(env.names) == 0 {
		tb.Fatal("the Caddyfile reads no environment variable")
	}
	return env
}

func TestSourceDerivation(t *testing.T) {
	fuel := configEnv(t, "services/fuel/cmd/fuel-service")
	for _, name := range []string{"FUEL_ADDR", "DATABASE_URL", "DATABASE_URL_FILE", "SHUTDOWN_DRAIN", "OTEL_EXPORTER_OTLP_ENDPOINT"} {
		if !fuel.reads(name) {
			t.Errorf("fuel's configuration does not read %s", name)
		}
	}
	for _, name := range []string{"FUEL_ADDR_FILE", "DOCQA_ADDR", "PATH"} {
		if fuel.reads(name) {
			t.Errorf("fuel's configuration reads %s", name)
		}
	}
	docqa := configEnv(t, "services/docqa/cmd/docqa-service")
	for _, name := range []string{"DOCQA_ADDR", "MILVUS_PASSWORD_FILE", "DOCQA_PDF_CACHE_DIR", "RERANK_API_KEY"} {
		if !docqa.reads(name) {
			t.Errorf("docqa's configuration does not read %s", name)
		}
	}
	for _, tt := range []struct {
		cmd  string
		want []string
	}{
		{"services/fuel/cmd/fuel-service", []string{"/livez", "/readyz", "/health", "/metrics", "/api/vehicles/:id"}},
		{"services/docqa/cmd/docqa-service", []string{"/livez", "/readyz", "/health", "/metrics", "/api/documents/:md5/file"}},
	} {
		routes := getRoutes(t, tt.cmd)
		for _, r := range tt.want {
			if !routes[r] {
				t.Errorf("%s: GET %s not found among %v", tt.cmd, r, routes)
			}
		}
		if routes["/documents"] || routes["/vehicles"] {
			t.Errorf("%s: a group's route without its prefix: %v", tt.cmd, routes)
		}
	}
}

func TestCaddyEnv(t *testing.T) {
	env := caddyEnv(t, "{$LISTEN_ADDRESS::8000} {\n\troot * {$WEB_ROOT}\n\t@t expression {env.TRACES} != \"\"\n}\n")
	for _, name := range []string{"LISTEN_ADDRESS", "WEB_ROOT", "TRACES", "OTEL_SERVICE_NAME"} {
		if !env.reads(name) {
			t.Errorf("%s not read", name)
		}
	}
	if env.reads("ROOT") || env.reads("LISTEN") {
		t.Errorf("reads %v", env.names)
	}
}
