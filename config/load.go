package config

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/providers/posflag"
	"github.com/knadh/koanf/v2"
	"github.com/spf13/pflag"

	"github.com/feedbridge/feedbridge/connectors"
)

// Load builds the configuration from the built-in defaults, the YAML file at path ("" for none), the
// FEEDBRIDGE_ environment and the flags of flags that were set on the command line (nil for none). It
// resolves "file:" secrets of the top-level sections; connector secrets are read by their packages at use.
// The error lists every problem found (unknown keys, bad types, unreadable secrets). The Config is nil
// only when the file cannot be read or parsed; with other problems it holds what could be decoded, so that
// `config check` can list Validate's problems beside them. Errors carry no "config:" prefix; callers add
// their context. Load does not Validate.
func Load(path string, flags *pflag.FlagSet) (*Config, error) {
	return load(path, flags, os.Environ)
}

func load(path string, flags *pflag.FlagSet, environ func() []string) (*Config, error) {
	k := koanf.New(".")
	if err := k.Load(confmap.Provider(toMap(reflect.ValueOf(Default())), ""), nil); err != nil {
		return nil, fmt.Errorf("defaults: %w", err)
	}
	var problems []error
	layer := func(m map[string]any, where func(key string) string) {
		for _, key := range unknownKeys(m, reflect.TypeFor[Config](), "") {
			problems = append(problems, fmt.Errorf("unknown key %q %s", key, where(key)))
		}
		problems = append(problems, connectorKeyProblems(m, where)...)
		problems = append(problems, eventKeyProblems(m, where)...)
		// confmap never fails; the error is part of the koanf interface only.
		_ = k.Load(confmap.Provider(m, ""), nil)
	}

	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		m, err := yaml.Parser().Unmarshal(b)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", path, yamlError(err))
		}
		lines := keyLines(b)
		layer(m, func(key string) string {
			if n := lines[key]; n > 0 {
				return fmt.Sprintf("in %s line %d", path, n)
			}
			return "in " + path
		})
	}

	envMap, envProblems := readEnv(environ)
	problems = append(problems, envProblems...)
	layer(envMap, func(key string) string { return "from environment variable " + envName(key) })

	if flags != nil {
		m, err := flagProvider(flags).Read()
		if err != nil {
			return nil, fmt.Errorf("flags: %w", err)
		}
		layer(m, func(key string) string { return "from flag --" + key })
	}

	var cfg Config
	if err := decode(k.Raw(), &cfg); err != nil {
		problems = append(problems, flatten(err)...)
	}
	problems = append(problems, resolveSecrets(&cfg)...)
	if len(problems) > 0 {
		return &cfg, errors.Join(problems...)
	}
	return &cfg, nil
}

// decode fills cfg from the merged map. Weak typing lets environment strings become numbers and lists.
func decode(m map[string]any, cfg *Config) error {
	d, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		TagName:          "koanf",
		WeaklyTypedInput: true,
		DecodeHook:       mapstructure.ComposeDecodeHookFunc(durationHook, listHook),
		Result:           cfg,
	})
	if err != nil {
		return fmt.Errorf("decoder: %w", err)
	}
	err = d.Decode(m)
	// Decode wraps several problems in one "decoding failed" error; unwrap it so each is listed alone.
	if inner := errors.Unwrap(err); inner != nil {
		if _, joined := inner.(interface{ Unwrap() []error }); joined {
			return inner
		}
	}
	return err
}

// durationHook parses "30s"-style strings and refuses bare numbers, which would silently mean nanoseconds.
func durationHook(from, to reflect.Type, data any) (any, error) {
	if to != durationType || from == durationType {
		return data, nil
	}
	s, ok := data.(string)
	if !ok {
		return nil, fmt.Errorf("a duration needs a unit, e.g. \"30s\", got %v", data)
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("invalid duration %q: use a unit, e.g. \"30s\" or \"2m\"", s)
	}
	return d, nil
}

// listHook lets a comma-separated string (an environment variable) fill a list of strings.
func listHook(from, to reflect.Type, data any) (any, error) {
	if from.Kind() != reflect.String || to != reflect.TypeFor[[]string]() {
		return data, nil
	}
	out := []string{}
	for part := range strings.SplitSeq(data.(string), ",") {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

// resolveSecrets replaces "file:" values of secret fields (struct tag secret:"true") with the file content.
func resolveSecrets(cfg *Config) []error {
	var problems []error
	v := reflect.ValueOf(cfg).Elem()
	for _, l := range leaves(v.Type(), "", nil) {
		if l.Secret == "" || l.Type.Kind() != reflect.String {
			continue
		}
		f := v.FieldByIndex(l.Index)
		s, err := connectors.Secret(f.String()).Value()
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", l.Path, err))
			continue
		}
		f.SetString(s)
	}
	return problems
}

// flatten splits joined errors so that each problem is listed on its own.
func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}

// flagProvider maps flags named after dotted keys (--log.level, --store.url; "-" may stand for "_") onto
// the configuration. Only flags set on the command line count, so a flag's default never hides the file.
// Other flags of the command (--config, --json, --demo …) are not configuration and are skipped.
func flagProvider(fs *pflag.FlagSet) *posflag.Posflag {
	known := map[string]bool{}
	for _, l := range leaves(reflect.TypeFor[Config](), "", nil) {
		known[l.Path] = true
	}
	return posflag.ProviderWithFlag(fs, ".", nil, func(f *pflag.Flag) (string, any) {
		key := strings.ReplaceAll(f.Name, "-", "_")
		if !f.Changed || !known[key] {
			return "", nil
		}
		return key, posflag.FlagVal(fs, f)
	})
}

// AddFlags defines the configuration flags that the daemon offers (--http.listen, --store.url,
// --log.level, --log.format); their values reach the configuration only when set.
func AddFlags(fs *pflag.FlagSet) {
	d := Default()
	fs.String("http.listen", d.HTTP.Listen, "address to listen on (http.listen)")
	fs.String("store.url", d.Store.URL, "store URL, sqlite://PATH or postgres://… (store.url)")
	fs.String("log.level", d.Log.Level, "log level: trace, debug, info, warn, error (log.level)")
	fs.String("log.format", d.Log.Format, "log format: text or json (log.format)")
}
