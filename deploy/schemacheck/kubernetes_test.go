package schemacheck

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/yaml"
)

// kinds maps each kind the manifests use to its API version and a fresh typed object.
var kinds = map[string]struct {
	apiVersion string
	object     func() any
}{
	"Deployment":          {"apps/v1", func() any { return &appsv1.Deployment{} }},
	"Service":             {"v1", func() any { return &corev1.Service{} }},
	"ConfigMap":           {"v1", func() any { return &corev1.ConfigMap{} }},
	"Secret":              {"v1", func() any { return &corev1.Secret{} }},
	"PodDisruptionBudget": {"policy/v1", func() any { return &policyv1.PodDisruptionBudget{} }},
	"Job":                 {"batch/v1", func() any { return &batchv1.Job{} }},
}

var docSeparator = regexp.MustCompile(`(?m)^---\s*$`)

// TestKubernetesManifestsMatchTheAPI decodes every manifest strictly into its Kubernetes type: an unknown
// or misspelt field, a wrong type or an invalid quantity fails, as `kubectl apply --validate=strict` would.
func TestKubernetesManifestsMatchTheAPI(t *testing.T) {
	files, err := filepath.Glob("../kubernetes/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	for _, f := range files {
		if filepath.Base(f) == "kustomization.yaml" {
			continue // a kustomize file, not an API object
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range docSeparator.Split(string(b), -1) {
			if len(bytes.TrimSpace([]byte(doc))) == 0 {
				continue
			}
			t.Run(filepath.Base(f)+"#"+string(rune('0'+i)), func(t *testing.T) {
				var head struct {
					APIVersion string `json:"apiVersion"`
					Kind       string `json:"kind"`
				}
				if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
					t.Fatal(err)
				}
				k, ok := kinds[head.Kind]
				if !ok {
					t.Fatalf("kind %q has no schema here; add it to kinds", head.Kind)
				}
				if head.APIVersion != k.apiVersion {
					t.Errorf("%s has apiVersion %q, want %q", head.Kind, head.APIVersion, k.apiVersion)
				}
				if err := yaml.UnmarshalStrict([]byte(doc), k.object()); err != nil {
					t.Fatalf("%s: %v", head.Kind, err)
				}
			})
		}
	}
}
