package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestComposeFile(t *testing.T) {
	c := yamlDocs(t, "compose.yaml")[0]
	fb := get(c, "services.feedbridge")
	pg := get(c, "services.postgres")
	if fb == nil || pg == nil {
		t.Fatal("compose.yaml needs the services feedbridge and postgres")
	}
	env, _ := get(fb, "environment").(map[string]any)
	configPath, _ := env["FEEDBRIDGE_CONFIG"].(string)

	mounts := map[string]string{} // container path → host path
	for _, v := range toStrings(get(fb, "volumes")) {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 {
			mounts[parts[1]] = parts[0]
		}
	}
	declared, _ := get(c, "volumes").(map[string]any)
	checks := []struct {
		name string
		ok   bool
	}{
		{"waits for a healthy database", str(fb, "depends_on.postgres.condition") == "service_healthy"},
		{"database has a health check", get(pg, "healthcheck.test") != nil},
		{"database data on a named volume", slices.ContainsFunc(toStrings(get(pg, "volumes")), func(v string) bool {
			_, ok := declared[strings.Split(v, ":")[0]]
			return ok && strings.Contains(v, "/var/lib/postgresql/data")
		})},
		{"config file is mounted where FEEDBRIDGE_CONFIG points", configPath != "" && mounts[configPath] != ""},
		{"builds the image from the repository Dockerfile", str(fb, "build.dockerfile") == "deploy/docker/Dockerfile"},
		{"grace period for shutdown", str(fb, "stop_grace_period") != ""},
	}
	for _, ck := range checks {
		t.Run(ck.name, func(t *testing.T) {
			if !ck.ok {
				t.Fatal("not so in compose.yaml")
			}
		})
	}

	t.Run("mounted config loads with the compose environment", func(t *testing.T) {
		host := mounts[configPath]
		text := readFile(t, filepath.Join(".", strings.TrimSuffix(host, ":ro")))
		vars := map[string]string{}
		for k, v := range env {
			if s, ok := v.(string); ok && k != "FEEDBRIDGE_CONFIG" {
				vars[k] = interpolate(s)
			}
		}
		cfg := loadConfig(t, text, "", nil, vars)
		if !strings.HasPrefix(cfg.Store.URL, "postgres://") || !strings.Contains(cfg.Store.URL, "@postgres:5432/") {
			t.Errorf("store.url does not point at the postgres service")
		}
	})
}

// interpolate applies Compose's ${VAR:-default} with an empty environment, as on a first trial run.
func interpolate(s string) string {
	re := regexp.MustCompile(`\$\{([A-Z0-9_]+):-([^}]*)\}`)
	return re.ReplaceAllStringFunc(s, func(m string) string {
		sub := re.FindStringSubmatch(m)
		if v := os.Getenv(sub[1]); v != "" {
			return v
		}
		return sub[2]
	})
}
