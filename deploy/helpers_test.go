package deploy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/feedbridge/feedbridge/config"
)

// doc is one parsed YAML document; path walks it.
type doc = map[string]any

// yamlDocs parses every document of a YAML file.
func yamlDocs(t *testing.T, path string) []doc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var out []doc
	for {
		var d doc
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if d != nil {
			out = append(out, d)
		}
	}
}

// get follows a dotted path; a segment "[i]" indexes a list. Missing parts give nil.
func get(v any, path string) any {
	for _, seg := range strings.Split(path, ".") {
		if strings.HasPrefix(seg, "[") {
			list, _ := v.([]any)
			i := int(seg[1] - '0')
			if i >= len(list) {
				return nil
			}
			v = list[i]
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[seg]
	}
	return v
}

func str(v any, path string) string {
	s, _ := get(v, path).(string)
	return s
}

func num(v any, path string) int {
	switch n := get(v, path).(type) {
	case int:
		return n
	case float64:
		return int(n)
	}
	return -1
}

// loadConfig loads a shipped configuration with only the given environment, and validates it. Secrets
// written as file:DIR/NAME are redirected to the files in secrets (NAME → content) so the check needs no
// real secret store.
func loadConfig(t *testing.T, yamlText string, secretDir string, secrets map[string]string, env map[string]string) *config.Config {
	t.Helper()
	tmp := t.TempDir()
	if secretDir != "" {
		for name, content := range secrets {
			if err := os.WriteFile(filepath.Join(tmp, name), []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		yamlText = strings.ReplaceAll(yamlText, "file:"+secretDir+"/", "file:"+tmp+"/")
	}
	p := filepath.Join(tmp, "config.yaml")
	if err := os.WriteFile(p, []byte(yamlText), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "FEEDBRIDGE_") {
			t.Setenv(k, "") // set and restored by the test framework
			os.Unsetenv(k)
		}
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	cfg, err := config.Load(p, nil)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if errs := cfg.Validate(); len(errs) > 0 {
		t.Fatalf("validate: %v", errs)
	}
	return cfg
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
