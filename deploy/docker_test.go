package deploy

import (
	"strconv"
	"strings"
	"testing"
)

// instruction is one Dockerfile instruction with its continuation lines joined.
type instruction struct{ Cmd, Args string }

func parseDockerfile(text string) []instruction {
	var out []instruction
	var cur strings.Builder
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		cur.WriteString(trimmed)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{strings.ToUpper(cmd), strings.TrimSpace(args)})
		cur.Reset()
	}
	return out
}

func TestDockerfile(t *testing.T) {
	ins := parseDockerfile(readFile(t, "docker/Dockerfile"))
	var froms int
	var lastStage []instruction // instructions of the runtime (final) stage
	for _, in := range ins {
		if in.Cmd == "FROM" {
			froms++
			lastStage = nil
		}
		lastStage = append(lastStage, in)
	}
	find := func(stage []instruction, cmd string) []string {
		var out []string
		for _, in := range stage {
			if in.Cmd == cmd {
				out = append(out, in.Args)
			}
		}
		return out
	}
	all := func(cmd string) string { return strings.Join(find(ins, cmd), "\n") }

	user := strings.Join(find(lastStage, "USER"), "")
	uid, _, _ := strings.Cut(user, ":")
	n, err := strconv.Atoi(uid)
	healthcheck := strings.Join(find(lastStage, "HEALTHCHECK"), "")
	env := strings.Join(find(lastStage, "ENV"), " ")
	checks := []struct {
		name string
		ok   bool
	}{
		{"multi-stage", froms >= 2},
		{"static build without cgo", strings.Contains(all("RUN"), "CGO_ENABLED=0")},
		{"builds ./cmd/feedbridge", strings.Contains(all("RUN"), "./cmd/feedbridge")},
		{"runtime user is a non-zero numeric uid", err == nil && n > 0},
		{"health check hits /healthz", strings.Contains(healthcheck, "/healthz")},
		{"health check port is the listen port", strings.Contains(env, "FEEDBRIDGE_HTTP__LISTEN=0.0.0.0:8080") &&
			strings.Contains(healthcheck, ":8080/") && strings.Contains(strings.Join(find(lastStage, "EXPOSE"), " "), "8080")},
		{"CA certificates for IMAP, Slack and HTTPS imports", strings.Contains(all("COPY"), "ca-certificates.crt")},
		{"entrypoint is the binary", strings.Contains(strings.Join(find(lastStage, "ENTRYPOINT"), ""), "/usr/local/bin/feedbridge")},
	}
	for _, ck := range checks {
		t.Run(ck.name, func(t *testing.T) {
			if !ck.ok {
				t.Fatal("not so in deploy/docker/Dockerfile")
			}
		})
	}
}
