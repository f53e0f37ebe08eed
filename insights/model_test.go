package insights

import (
	"bytes"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
)

func loadCorpus(t testing.TB) []LabelledText {
	t.Helper()
	data, err := os.ReadFile("train/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	corpus, err := ReadLabelled(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("train/corpus.jsonl: %v", err)
	}
	return corpus
}

// TestEmbeddedModelMatchesCorpus retrains from the checked-in corpus: the embedded weights must be exactly
// what `go run ./insights/train` writes, so the model cannot drift from its corpus, features or lexicon.
func TestEmbeddedModelMatchesCorpus(t *testing.T) {
	corpus := loadCorpus(t)
	if len(corpus) < 3000 {
		t.Fatalf("corpus has %d examples, want at least 3000", len(corpus))
	}
	if got := TrainModel(corpus); !bytes.Equal(got, embeddedModel) {
		t.Fatalf("insights/model.bin (%d bytes) is not what the corpus trains (%d bytes): run go run ./insights/train",
			len(embeddedModel), len(got))
	}
}

func TestModelRoundTrip(t *testing.T) {
	m, err := builtinModel()
	if err != nil {
		t.Fatal(err)
	}
	again, err := decodeModel(encodeModel(m))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, m) {
		t.Error("decode(encode(model)) differs from the model")
	}
	for _, bad := range [][]byte{nil, []byte("nope"), append([]byte(modelMagic), make([]byte, 8)...),
		append(append([]byte(nil), embeddedModel...), 0x00, 1, 2, 3, 4, 5)} {
		if _, err := decodeModel(bad); err == nil {
			t.Errorf("decodeModel(%d bytes) accepted a corrupt model", len(bad))
		}
	}
}

func TestReadLabelledErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"text":"ok","kind":"praise","sentiment":"positive"}` + "\n" + `{"text":`, "line 2"},
		{`{"text":"x","kind":"complaint","sentiment":"negative"}`, `unknown kind "complaint"`},
		{`{"text":"","kind":"praise","sentiment":"positive"}`, "empty text"},
	} {
		if _, err := ReadLabelled(strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadLabelled(%q) = %v, want an error naming %q", tc.in, err, tc.want)
		}
	}
}

// TestPortableExp checks the training exp against the library one: it only has to be close, and the same
// on every platform.
func TestPortableExp(t *testing.T) {
	for _, x := range []float64{0, -1e-9, -0.5, -1, -2.25, -7.9, -20, -59} {
		want := math.Exp(x)
		if got := portableExp(x); got < want*(1-1e-12) || got > want*(1+1e-12) {
			t.Errorf("portableExp(%g) = %g, want %g", x, got, want)
		}
	}
	if portableExp(-100) != 0 {
		t.Error("portableExp(-100) should underflow to 0")
	}
}
