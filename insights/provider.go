package insights

import "fmt"

// Provider names of insights.provider.
const (
	ProviderBuiltin = "builtin"
	ProviderOpenAI  = "openai"
	ProviderOff     = "off"
)

// FromConfig builds the extractor that insights.provider names: builtin, openai (configured by oc), or off,
// which returns a nil Extractor and no error (run no pool then).
func FromConfig(provider string, oc OpenAIConfig) (Extractor, error) {
	switch provider {
	case ProviderBuiltin, "":
		return NewBuiltin(0), nil
	case ProviderOpenAI:
		return NewOpenAI(oc)
	case ProviderOff:
		return nil, nil
	}
	return nil, fmt.Errorf("insights: unknown provider %q (builtin, openai or off)", provider)
}
