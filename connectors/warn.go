package connectors

import (
	"io"

	"github.com/sirupsen/logrus"
)

// Warner is a Set with advice about its configuration that is valid but probably not what its owner wants;
// `feedbridge config check` prints it, and a Set logs it when it starts.
type Warner interface {
	Warnings() []string
}

// WarnAll builds every kind offline, as ValidateAll does, and returns the warnings of the sets that build.
func WarnAll(byKind map[string][]map[string]any) []string {
	l := logrus.New()
	l.SetOutput(io.Discard)
	sets, _ := BuildAll(byKind, Env{Log: logrus.NewEntry(l)})
	var out []string
	for _, s := range sets {
		if w, ok := s.(Warner); ok {
			out = append(out, w.Warnings()...)
		}
	}
	return out
}
