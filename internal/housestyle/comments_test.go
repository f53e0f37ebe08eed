package housestyle

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Comments cite nothing outside the repository and quote no measured figure: a reader cannot follow a
// citation of a document they do not have, and a figure goes stale the day the code around it changes. A
// comment says the constraint and points to bench/RESULTS.md, where figures live with their commands.
var forbidden = []struct {
	what string
	re   *regexp.Regexp
}{
	{"a section of a document outside the repository", regexp.MustCompile(`§`)},
	{"an issue number", regexp.MustCompile(`(?i)\bissues? #?\d`)},
	{"a measured figure", regexp.MustCompile(`\d[\d,.]* ?(µs|rows/s|jobs/s|messages/s|msgs?/s|req/s|requests/s|records/s|feedbacks/s)\b`)},
	{"a measured latency", regexp.MustCompile(`\bp(50|95|99) (of )?\d`)},
}

// root is the repository's top folder.
const root = "../.."

func TestCommentsCiteNothingOutside(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				for _, rule := range forbidden {
					if m := rule.re.FindString(c.Text); m != "" {
						rel, _ := filepath.Rel(root, fset.Position(c.Pos()).Filename)
						t.Errorf("%s:%d: a comment quotes %s (%q): say the constraint, and point to bench/RESULTS.md for figures",
							rel, fset.Position(c.Pos()).Line, rule.what, m)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestForbiddenPatternsMatch keeps the patterns honest: each catches the kind of comment it is for.
func TestForbiddenPatternsMatch(t *testing.T) {
	for _, c := range []string{"// the shape of contract §2.4", "// see issue #12", "// 5,200 rows/s on one core", "// p99 27 ms"} {
		hit := false
		for _, rule := range forbidden {
			hit = hit || rule.re.MatchString(c)
		}
		if !hit {
			t.Errorf("no pattern catches %q", c)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the walk does not start at the repository's top: %v", err)
	}
}
