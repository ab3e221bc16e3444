package emqid

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// The package's reference is `go doc`: every exported name it lists must say
// what it is. Reads the sources of both backends (build tags aside), as the
// reference does not depend on which one a build takes.
func TestEveryExportedNameHasADocComment(t *testing.T) {
	missing := undocumented(t, ".")
	for _, name := range missing {
		t.Errorf("%s has no doc comment", name)
	}
}

// The check itself fails on a package with an undocumented exported name.
func TestTheDocCheckFindsAnUndocumentedName(t *testing.T) {
	dir := t.TempDir()
	source := "// Package p is a fixture.\npackage p\n\n// Documented is.\nfunc Documented() {}\n\nfunc Bare() {}\n"
	if err := os.WriteFile(dir+"/p.go", []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := undocumented(t, dir); len(got) != 1 || got[0] != "func Bare" {
		t.Fatalf("want [func Bare], got %v", got)
	}
}

func undocumented(t *testing.T, dir string) []string {
	t.Helper()
	fset := token.NewFileSet()
	notTest := func(info os.FileInfo) bool { return !strings.HasSuffix(info.Name(), "_test.go") }
	pkgs, err := parser.ParseDir(fset, dir, notTest, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, pkg := range pkgs {
		files := make([]*ast.File, 0, len(pkg.Files))
		for _, f := range pkg.Files {
			files = append(files, f)
		}
		p, err := doc.NewFromFiles(fset, files, "emqid")
		if err != nil {
			t.Fatal(err)
		}
		if p.Doc == "" {
			missing = append(missing, "package "+p.Name)
		}
		values := func(kind string, vs []*doc.Value) {
			for _, v := range vs {
				if v.Doc != "" {
					continue
				}
				for _, spec := range v.Decl.Specs {
					s := spec.(*ast.ValueSpec)
					if s.Doc == nil && s.Comment == nil {
						for _, n := range s.Names {
							if n.IsExported() {
								missing = append(missing, kind+" "+n.Name)
							}
						}
					}
				}
			}
		}
		funcs := func(prefix string, fs []*doc.Func) {
			for _, f := range fs {
				if f.Doc == "" {
					missing = append(missing, "func "+prefix+f.Name)
				}
			}
		}
		values("const", p.Consts)
		values("var", p.Vars)
		funcs("", p.Funcs)
		for _, ty := range p.Types {
			if ty.Doc == "" {
				missing = append(missing, "type "+ty.Name)
			}
			values("const", ty.Consts)
			values("var", ty.Vars)
			funcs("", ty.Funcs)
			funcs(ty.Name+".", ty.Methods)
		}
	}
	return missing
}
