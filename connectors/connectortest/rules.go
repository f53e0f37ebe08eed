package connectortest

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// The kit's rules that a kind can break, each as a check that returns what is wrong, so that the suite
// reports it and the kit's own tests can run it against a kind broken on purpose (see probe_test.go).

// CheckDefaults: the value Kind.Config returns holds no default that its `default` tag contradicts. The
// kit applies a tag only to a field Config leaves zero, so such a field would be documented with the
// tag's value and run with Config's.
func CheckDefaults(k connectors.Kind) error {
	raw := reflect.ValueOf(k.Config()).Elem()
	tags := reflect.New(raw.Type())
	if err := connectors.ApplyDefaults(tags.Interface()); err != nil {
		return err
	}
	var errs []error
	compare(raw, tags.Elem(), "", &errs)
	return errors.Join(errs...)
}

// compare names each field of raw (Config's value) that is set, has a default tag and differs from the
// tag's value in tags.
func compare(raw, tags reflect.Value, prefix string, errs *[]error) {
	t := raw.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		key := sf.Tag.Get("koanf")
		if key == "" || key == "-" || !sf.IsExported() {
			continue
		}
		if prefix != "" {
			key = prefix + "." + key
		}
		if sf.Type.Kind() == reflect.Struct {
			compare(raw.Field(i), tags.Field(i), key, errs)
			continue
		}
		tag, ok := sf.Tag.Lookup("default")
		if !ok || raw.Field(i).IsZero() {
			continue
		}
		if !reflect.DeepEqual(raw.Field(i).Interface(), tags.Field(i).Interface()) {
			*errs = append(*errs, fmt.Errorf("%s: Config sets %v but the default tag says %q", key, raw.Field(i).Interface(), tag))
		}
	}
}

// CheckBuildsTwice builds the kind's entry twice against one real metrics registry, as the daemon does
// (once to check the whole configuration, once to start the entry, and again at each reload), and
// gathers the registry: a kind that registers its metrics outside connectors.Metrics panics or fails here
// instead of at `feedbridge serve`.
func CheckBuildsTwice(kind string, entry map[string]any, env connectors.Env) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("building %s twice against one metrics registry panicked: %v", kind, p)
		}
	}()
	reg := prometheus.NewRegistry()
	env.Metrics = reg
	if env.Log == nil {
		l := logrus.New()
		l.SetOutput(io.Discard)
		env.Log = logrus.NewEntry(l)
	}
	for i := range 2 {
		if _, err := connectors.BuildKind(kind, []map[string]any{entry}, env); err != nil {
			return fmt.Errorf("build %d of %s against one metrics registry: %w", i+1, kind, err)
		}
	}
	if _, err := reg.Gather(); err != nil {
		return fmt.Errorf("%s's metrics do not gather after two builds: %w", kind, err)
	}
	return nil
}

// CheckState: a state shown by GET /api/connectors is one of the kit's vocabulary.
func CheckState(st core.ConnectorStatus) error {
	if !connectors.State(st.State).Valid() {
		return fmt.Errorf("%s %q reports state %q, not one of %v", st.Kind, st.Name, st.State, connectors.States)
	}
	return nil
}

// CheckRefused: an entry that refused items (Entry.Refused, Board.Refused) shows them as GET
// /api/connectors does, count, last reason and its time, and not as a fault: last_error does not carry the
// refusal and /readyz does not list the entry among the failing (failing is core.Faults' list).
func CheckRefused(st core.ConnectorStatus, failing []string) error {
	if st.Refused <= 0 || st.LastRefused == "" || st.LastRefusedAt.IsZero() {
		return fmt.Errorf("%s %q refused items but shows refused=%d last_refused=%q last_refused_at=%v", st.Kind, st.Name,
			st.Refused, st.LastRefused, st.LastRefusedAt)
	}
	if strings.Contains(st.LastError, st.LastRefused) {
		return fmt.Errorf("%s %q shows its refusal as a fault in last_error: %q", st.Kind, st.Name, st.LastError)
	}
	if slices.Contains(failing, st.Kind+":"+st.Name) {
		return fmt.Errorf("%s %q is listed as failing by /readyz for a refused item", st.Kind, st.Name)
	}
	return nil
}

// CheckSuspendedFault: among the faults an entry reported (Entry.Fail) while its workspace was
// suspended, one is core.ErrWorkspaceNotFound as an error value, whatever its message says.
func CheckSuspendedFault(faults []error) error {
	for _, err := range faults {
		if errors.Is(err, core.ErrWorkspaceNotFound) {
			return nil
		}
	}
	return fmt.Errorf("no reported fault is core.ErrWorkspaceNotFound (errors.Is) among %d: %v", len(faults), faults)
}
