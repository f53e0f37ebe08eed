package schemacheck

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
)

// TestComposeFileMatchesTheSpec loads deploy/compose.yaml the way `docker compose config` does, validating
// it against the Compose specification's JSON schema and resolving interpolation with an empty environment.
func TestComposeFileMatchesTheSpec(t *testing.T) {
	dir, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	project, err := loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir:  dir,
		ConfigFiles: []types.ConfigFile{{Filename: filepath.Join(dir, "compose.yaml")}},
		Environment: types.Mapping{},
	})
	if err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	for _, name := range []string{"feedbridge", "postgres"} {
		if _, err := project.GetService(name); err != nil {
			t.Errorf("service %s: %v", name, err)
		}
	}
}
