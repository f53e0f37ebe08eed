package config

// The tests load configs with real connector entries, so every kind is registered here as in the binary.
import _ "github.com/feedbridge/feedbridge/connectors/all"
