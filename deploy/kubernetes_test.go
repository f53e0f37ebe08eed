package deploy

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/config"
)

// k8s loads every manifest of deploy/kubernetes, keyed by "Kind/name".
func k8s(t *testing.T) map[string]doc {
	t.Helper()
	files, err := filepath.Glob("kubernetes/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	out := map[string]doc{}
	for _, f := range files {
		for _, d := range yamlDocs(t, f) {
			kind, name := str(d, "kind"), str(d, "metadata.name")
			if kind == "" || str(d, "apiVersion") == "" {
				t.Fatalf("%s: a document without kind or apiVersion", f)
			}
			out[kind+"/"+name] = d
		}
	}
	return out
}

func mustGet(t *testing.T, objs map[string]doc, key string) doc {
	t.Helper()
	d, ok := objs[key]
	if !ok {
		t.Fatalf("missing %s", key)
	}
	return d
}

func TestKubernetesDeployment(t *testing.T) {
	objs := k8s(t)
	d := mustGet(t, objs, "Deployment/feedbridge")
	pod := get(d, "spec.template.spec")
	c := get(pod, "containers.[0]")
	podLabels, _ := get(d, "spec.template.metadata.labels").(map[string]any)

	ports := map[string]bool{}
	for _, p := range get(c, "ports").([]any) {
		ports[str(p, "name")] = true
	}
	checks := []struct {
		name string
		ok   bool
	}{
		{"two or more replicas", num(d, "spec.replicas") >= 2},
		{"readiness on /readyz", str(c, "readinessProbe.httpGet.path") == "/readyz"},
		{"liveness on /healthz", str(c, "livenessProbe.httpGet.path") == "/healthz"},
		{"probes use a declared port", ports[str(c, "readinessProbe.httpGet.port")] && ports[str(c, "livenessProbe.httpGet.port")]},
		{"runs serve", slices.Equal(toStrings(get(c, "args")), []string{"serve"})},
		{"cpu and memory requests", str(c, "resources.requests.cpu") != "" && str(c, "resources.requests.memory") != ""},
		{"memory limit", str(c, "resources.limits.memory") != ""},
		{"runAsNonRoot", get(pod, "securityContext.runAsNonRoot") == true},
		{"non-zero uid", num(pod, "securityContext.runAsUser") > 0},
		{"no privilege escalation", get(c, "securityContext.allowPrivilegeEscalation") == false},
		{"read-only root", get(c, "securityContext.readOnlyRootFilesystem") == true},
		{"drops all capabilities", slices.Equal(toStrings(get(c, "securityContext.capabilities.drop")), []string{"ALL"})},
		{"selector matches pod labels", matches(get(d, "spec.selector.matchLabels"), podLabels)},
		{"rolling update keeps capacity", num(d, "spec.strategy.rollingUpdate.maxUnavailable") == 0},
	}
	for _, ck := range checks {
		t.Run(ck.name, func(t *testing.T) {
			if !ck.ok {
				t.Fatal("not so in kubernetes/deployment.yaml")
			}
		})
	}

	t.Run("grace period covers preStop and shutdown_timeout", func(t *testing.T) {
		cfg := configMapConfig(t, objs)
		grace := num(pod, "terminationGracePeriodSeconds")
		preStop := toStrings(get(c, "lifecycle.preStop.exec.command"))
		sleep := 0
		if len(preStop) == 2 && preStop[0] == "sleep" {
			sleep, _ = strconv.Atoi(preStop[1])
		}
		if need := sleep + int(cfg.HTTP.ShutdownTimeout.Seconds()); grace <= need {
			t.Fatalf("terminationGracePeriodSeconds %d must exceed preStop %ds + shutdown_timeout", grace, sleep)
		}
	})
	t.Run("volumes refer to shipped objects", func(t *testing.T) {
		for _, v := range get(pod, "volumes").([]any) {
			if n := str(v, "configMap.name"); n != "" {
				mustGet(t, objs, "ConfigMap/"+n)
			}
			if n := str(v, "secret.secretName"); n != "" {
				mustGet(t, objs, "Secret/"+n)
			}
		}
	})
}

func TestKubernetesServicePDBJob(t *testing.T) {
	objs := k8s(t)
	d := mustGet(t, objs, "Deployment/feedbridge")
	podLabels, _ := get(d, "spec.template.metadata.labels").(map[string]any)
	c := get(d, "spec.template.spec.containers.[0]")

	svc := mustGet(t, objs, "Service/feedbridge")
	pdb := mustGet(t, objs, "PodDisruptionBudget/feedbridge")
	job := mustGet(t, objs, "Job/feedbridge-migrate")
	jc := get(job, "spec.template.spec.containers.[0]")
	checks := []struct {
		name string
		ok   bool
	}{
		{"service selects the pods", matches(get(svc, "spec.selector"), podLabels)},
		{"service targets the http port", str(svc, "spec.ports.[0].targetPort") == str(c, "ports.[0].name")},
		{"pdb selects the pods", matches(get(pdb, "spec.selector.matchLabels"), podLabels)},
		{"pdb leaves room to drain", num(pdb, "spec.minAvailable") >= 1 && num(pdb, "spec.minAvailable") < num(d, "spec.replicas")},
		{"job runs migrate", slices.Equal(toStrings(get(jc, "args")), []string{"migrate"})},
		{"job uses the server image", str(jc, "image") == str(c, "image")},
		{"job does not restart forever", num(job, "spec.backoffLimit") >= 0 && str(job, "spec.template.spec.restartPolicy") != "Always"},
		{"job runs as non-root", get(job, "spec.template.spec.securityContext.runAsNonRoot") == true},
		{"job reads the same config", str(jc, "env.[0].value") == str(c, "env.[0].value")},
	}
	for _, ck := range checks {
		t.Run(ck.name, func(t *testing.T) {
			if !ck.ok {
				t.Fatal("not so in deploy/kubernetes")
			}
		})
	}
}

// TestKubernetesConfigMapLoads runs the ConfigMap's config through the config package, with the example
// Secret's keys as the files it refers to: both must agree.
func TestKubernetesConfigMapLoads(t *testing.T) {
	cfg := configMapConfig(t, k8s(t))
	if !strings.HasPrefix(cfg.Store.URL, "postgres://") {
		t.Errorf("store.url = %q: several replicas need PostgreSQL", cfg.Store.URL)
	}
	if !strings.HasPrefix(cfg.HTTP.Listen, "0.0.0.0:") && !strings.HasPrefix(cfg.HTTP.Listen, ":") {
		t.Errorf("http.listen = %q is not reachable from the Service", cfg.HTTP.Listen)
	}
}

func configMapConfig(t *testing.T, objs map[string]doc) *config.Config {
	t.Helper()
	cm := mustGet(t, objs, "ConfigMap/feedbridge-config")
	secret := mustGet(t, objs, "Secret/feedbridge-secrets")
	secrets := map[string]string{}
	for k, v := range get(secret, "stringData").(map[string]any) {
		secrets[k] = v.(string)
	}
	text, _ := get(cm, "data").(map[string]any)["config.yaml"].(string)
	return loadConfig(t, text, "/run/secrets/feedbridge", secrets, nil)
}

func TestKustomizationListsEveryManifest(t *testing.T) {
	k := yamlDocs(t, "kubernetes/kustomization.yaml")[0]
	listed := toStrings(get(k, "resources"))
	files, _ := filepath.Glob("kubernetes/*.yaml")
	for _, f := range files {
		base := filepath.Base(f)
		if base == "kustomization.yaml" || base == "secret.example.yaml" {
			continue // the Secret is created by the operator, never applied from the repository
		}
		if !slices.Contains(listed, base) {
			t.Errorf("%s is not in kustomization.yaml resources", base)
		}
	}
	for _, r := range listed {
		if _, err := os.Stat(filepath.Join("kubernetes", r)); err != nil {
			t.Errorf("kustomization lists %s: %v", r, err)
		}
	}
}

func toStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}

// matches reports whether every label of selector is on labels (and the selector is not empty).
func matches(selector any, labels map[string]any) bool {
	sel, _ := selector.(map[string]any)
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}
