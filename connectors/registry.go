package connectors

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"
)

// Kind is one connector kind as it joins the registry: the key under `connectors:` in the config, the
// struct its entries decode into, and the builder that turns entries into a running Set.
type Kind struct {
	// Name is the key under `connectors:` ("slack", "webhook"); lowercase letters, digits and "_".
	Name string
	// Summary is one sentence for the generated configuration reference.
	Summary string
	// Config returns a new entry: a pointer to the kind's config struct. Its koanf tags name the keys, its
	// doc tags describe them, its default tags give the value of a key an entry leaves out (the kit
	// applies them: see Decode), and a field of type Secret (or a map of them) holds a secret: that is the
	// whole spec the config package validates, masks, documents and defaults from.
	Config func() any
	// Build makes the Set from the kind's raw entries without any network call. env.Service is nil when
	// the config is only being checked (`feedbridge config check`), so Build must not use it.
	Build Builder
	// Sweep, when set, is a housekeeping task the daemon runs for the kind until ctx ends, whether or not
	// the config has entries of it (the csv kind closes import runs whose process died).
	Sweep func(ctx context.Context, svc Service, log *logrus.Entry)
}

var (
	registryMu sync.RWMutex
	registry   = map[string]Kind{}
)

// Register adds a kind; each connector package calls it from its own init. An empty or malformed name, a
// name taken twice, a kind without Config or Build or a default tag that does not fit its field panics, so a wiring mistake fails at start.
func Register(k Kind) {
	if !validKindName(k.Name) {
		panic(fmt.Sprintf("connectors: Register: bad kind name %q", k.Name))
	}
	if k.Config == nil || k.Build == nil {
		panic(fmt.Sprintf("connectors: Register: kind %q needs Config and Build", k.Name))
	}
	if t := reflect.TypeOf(k.Config()); t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("connectors: Register: kind %q: Config must return a pointer to a struct", k.Name))
	}
	if _, err := k.Defaults(); err != nil {
		panic(fmt.Sprintf("connectors: Register: %v", err))
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[k.Name]; dup {
		panic(fmt.Sprintf("connectors: Register: kind %q registered twice", k.Name))
	}
	registry[k.Name] = k
}

// Lookup returns the registered kind of that name.
func Lookup(name string) (Kind, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	k, ok := registry[name]
	return k, ok
}

// Kinds returns every registered kind, sorted by name.
func Kinds() []Kind {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]Kind, 0, len(registry))
	for _, k := range registry {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Names returns the registered kind names, sorted.
func Names() []string {
	ks := Kinds()
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.Name
	}
	return out
}

func validKindName(s string) bool {
	if s == "" || strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
		return false
	}
	return s[0] >= 'a' && s[0] <= 'z'
}
