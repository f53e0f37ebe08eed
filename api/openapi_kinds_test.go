package api

import (
	"context"
	"reflect"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestOpenAPIListsConnectorKinds: the served document names exactly the kinds it is given (the daemon
// gives the registry's), and stays a valid document.
func TestOpenAPIListsConnectorKinds(t *testing.T) {
	b, err := OpenAPIFor([]string{"csv", "email", "slack", "newkind"})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := doc.Components.Schemas["Connector"].Value.Properties["kind"].Value.Enum
	want := []any{"csv", "email", "slack", "newkind"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("kind enum = %v, want %v", got, want)
	}
	if plain, _ := OpenAPIFor(nil); string(plain) != string(OpenAPI()) {
		t.Fatal("without kinds the embedded document is served")
	}
}
