package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// wantErr fails the test unless err matches target (errors.Is).
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: got error %v, want %v", what, err, target)
	}
}

// noErr fails the test on err.
func noErr(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// equal fails the test unless got and want are deeply equal.
func equal[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got  %+v\n want %+v", what, got, want)
	}
}

// wantUnknownID fails the test unless err is the validation error core.UnknownID(field, id).
func wantUnknownID(t *testing.T, err error, field string, id core.ID) {
	t.Helper()
	var ve *core.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want validation error for unknown %s id %s, got %v", field, id, err)
	}
	want := core.UnknownID(field, id)
	if ve.Field != want.Field || ve.Code != want.Code {
		t.Fatalf("validation error: got field %q code %q, want field %q code %q", ve.Field, ve.Code, want.Field, want.Code)
	}
}

// ids returns the ids of recs in order.
func ids(recs []core.Record) []core.ID {
	out := make([]core.ID, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	return out
}

// sameSet fails the test unless got and want hold the same ids, in any order.
func sameSet(t *testing.T, what string, got, want []core.ID) {
	t.Helper()
	g, w := slices.Clone(got), slices.Clone(want)
	slices.Sort(g)
	slices.Sort(w)
	if !slices.Equal(g, w) {
		t.Fatalf("%s: got %d ids %v, want %d ids %v", what, len(g), g, len(w), w)
	}
}

func title(i int) string { return fmt.Sprintf("record %04d", i) }
