package events_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/events"
)

const docPath = "../docs/events.md"

// docBlock returns the single fenced block of lang in docs/events.md that follows marker.
func docBlock(t *testing.T, marker, lang string) string {
	t.Helper()
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), marker)
	if !ok {
		t.Fatalf("%s has no %q", docPath, marker)
	}
	m := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```").FindStringSubmatch(after)
	if m == nil {
		t.Fatalf("%s: no %s block after %q", docPath, lang, marker)
	}
	return m[1]
}

// signed is a body and the header feedbridge sends with it.
func signed(at time.Time) (body []byte, header string) {
	body = []byte(`{"id":"6744a1b2c3d4e5f601020399","type":"record.created","data":{"record":{"title":"Dark mode ✓"},"changes":null}}`)
	return body, events.Signature([]byte(secret), at, body)
}

// The Go verification example of the docs compiles and accepts what feedbridge signs, and refuses a changed
// body, another secret and an old timestamp.
func TestDocGoVerification(t *testing.T) {
	code := docBlock(t, "In Go:", "go")
	dir := t.TempDir()
	main := `
func main() {
	body, _ := os.ReadFile(os.Args[3])
	if err := verify([]byte(os.Args[1]), os.Args[2], body, time.Now()); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("valid")
}
`
	src := "package main\n\n" + strings.Replace(code, "import (", "import (\n\t\"fmt\"\n\t\"os\"", 1) + main
	for name, content := range map[string]string{"go.mod": "module verify\n\ngo 1.26\n", "main.go": src} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	build := exec.Command("go", "build", "-o", "verify", ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the documented Go example does not build: %v\n%s", err, out)
	}
	body, header := signed(time.Now())
	_, old := signed(time.Now().Add(-10 * time.Minute))
	cases := []struct {
		name, secret, header, body, want string
	}{
		{"valid", secret, header, string(body), "valid"},
		{"changed body", secret, header, strings.Replace(string(body), "Dark", "Light", 1), "bad signature"},
		{"other secret", "other", header, string(body), "bad signature"},
		{"old", secret, old, string(body), "signature too old"},
		{"malformed", secret, "v1=abc", string(body), "malformed signature header"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "body.json")
			if err := os.WriteFile(f, []byte(c.body), 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(filepath.Join(dir, "verify"), c.secret, c.header, f).Output()
			if err != nil || strings.TrimSpace(string(out)) != c.want {
				t.Fatalf("got %q (%v), want %q", out, err, c.want)
			}
		})
	}
}

// The shell one-liner of the docs accepts what feedbridge signs and refuses a changed body.
func TestDocShellVerification(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl is not installed")
	}
	line := strings.TrimSpace(docBlock(t, "In a shell", "sh"))
	body, header := signed(time.Now())
	for _, c := range []struct {
		name, body string
		valid      bool
	}{{"valid", string(body), true}, {"changed body", string(body) + " ", false}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "body.json"), []byte(c.body), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("sh", "-c", line)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HEADER="+header, "SECRET="+secret)
			out, _ := cmd.Output()
			if got := strings.TrimSpace(string(out)) == "valid"; got != c.valid {
				t.Fatalf("one-liner said %q for a %s", out, c.name)
			}
		})
	}
}
