package deploy

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryManifestParses walks deploy/ and parses each YAML and JSON file, so a broken indent in a file no
// other test looks at still fails. deploy/slack belongs to the Slack connector and has its own tests.
func TestEveryManifestParses(t *testing.T) {
	var n int
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path == "slack" {
			return filepath.SkipDir
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml":
			n++
			t.Run(path, func(t *testing.T) {
				if docs := yamlDocs(t, path); len(docs) == 0 {
					t.Fatal("no YAML document")
				}
			})
		case ".json":
			n++
			t.Run(path, func(t *testing.T) {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !json.Valid(b) {
					t.Fatal("invalid JSON")
				}
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("found only %d manifests; is the test running in deploy/?", n)
	}
}
