package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// unit is a parsed systemd unit: section → key → every value in order.
type unit map[string]map[string][]string

func parseUnit(text string) unit {
	u := unit{}
	section := ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "["):
			section = strings.Trim(line, "[]")
			u[section] = map[string][]string{}
		default:
			k, v, _ := strings.Cut(line, "=")
			u[section][k] = append(u[section][k], v)
		}
	}
	return u
}

func (u unit) get(section, key string) string {
	vs := u[section][key]
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

func TestSystemdUnit(t *testing.T) {
	u := parseUnit(readFile(t, "systemd/feedbridge.service"))
	execStart := strings.Fields(u.get("Service", "ExecStart"))
	cfg := loadConfig(t, readFile(t, "systemd/config.yaml"), "", nil, nil)
	stop, err := time.ParseDuration(u.get("Service", "TimeoutStopSec"))
	if err != nil {
		t.Fatalf("TimeoutStopSec: %v", err)
	}
	sysusers := readFile(t, "systemd/feedbridge.sysusers.conf")

	checks := []struct {
		name string
		ok   bool
	}{
		{"runs serve with the /etc/feedbridge config", slices.Contains(execStart, "serve") &&
			strings.Contains(u.get("Service", "ExecStart"), "--config /etc/feedbridge/config.yaml")},
		{"own user", u.get("Service", "DynamicUser") == "yes" ||
			(u.get("Service", "User") != "" && u.get("Service", "User") != "root" &&
				strings.Contains(sysusers, "u "+u.get("Service", "User")+" "))},
		{"NoNewPrivileges", u.get("Service", "NoNewPrivileges") == "yes"},
		{"ProtectSystem=strict", u.get("Service", "ProtectSystem") == "strict"},
		{"ProtectHome", u.get("Service", "ProtectHome") == "yes"},
		{"PrivateTmp", u.get("Service", "PrivateTmp") == "yes"},
		{"no capabilities", u.get("Service", "CapabilityBoundingSet") == "" && len(u["Service"]["CapabilityBoundingSet"]) > 0},
		{"StateDirectory holds the SQLite store", u.get("Service", "StateDirectory") == "feedbridge" &&
			strings.HasPrefix(cfg.Store.URL, "sqlite:///var/lib/feedbridge/")},
		{"stop timeout exceeds shutdown_timeout", stop > cfg.HTTP.ShutdownTimeout},
		{"restarts on failure", u.get("Service", "Restart") == "on-failure"},
		{"installable", u.get("Install", "WantedBy") == "multi-user.target"},
	}
	for _, ck := range checks {
		t.Run(ck.name, func(t *testing.T) {
			if !ck.ok {
				t.Fatal("not so in deploy/systemd")
			}
		})
	}
}

// TestSystemdAnalyze runs systemd's own checks where systemd-analyze exists. verify reports unknown keys and
// bad values only as warnings with exit 0, so any output fails the test.
func TestSystemdAnalyze(t *testing.T) {
	tool, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed here; the unit was checked only by TestSystemdUnit")
	}
	truePath, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no `true` binary to stand in for the feedbridge executable")
	}
	// verify insists that ExecStart's binary exists; the unit is copied with a stand-in.
	text := strings.ReplaceAll(readFile(t, "systemd/feedbridge.service"), "/usr/local/bin/feedbridge", truePath)
	p := filepath.Join(t.TempDir(), "feedbridge.service")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("verify", func(t *testing.T) {
		out, err := exec.Command(tool, "verify", p).CombinedOutput()
		if err != nil || len(strings.TrimSpace(string(out))) > 0 {
			t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
		}
	})
	t.Run("security exposure at most 2.0", func(t *testing.T) {
		out, err := exec.Command(tool, "security", "--offline=true", "--threshold=20", p).CombinedOutput()
		if strings.Contains(string(out), "Unknown option") || strings.Contains(string(out), "unrecognized option") {
			t.Skipf("this systemd-analyze has no offline security check: %s", out)
		}
		if err != nil {
			t.Fatalf("systemd-analyze security: %v\n%s", err, out)
		}
	})
}
