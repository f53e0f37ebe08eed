package insights

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
)

// The learned half of the builtin extractor: a multinomial logistic regression over hashed features of a
// sentence (its words, word pairs, word stems, words in the scope of a negation and what the cue lexicon
// says about it). Its weights are trained offline from the labelled corpus in train/corpus.jsonl by
// `go run ./insights/train` and embedded here; nothing is fetched at run time.

//go:embed model.bin
var embeddedModel []byte

// modelClasses are the model's outputs in weight order; classNone marks a sentence that carries no insight
// (a greeting, a version number, the account's context).
var modelClasses = [...]string{classNone, KindProblem, KindRequest, KindPraise, KindQuestion}

const (
	classNone   = "none"
	numClasses  = len(modelClasses)
	hashBits    = 18
	hashBuckets = 1 << hashBits
	modelMagic  = "fbim1"
)

// model holds the weights dense by hash bucket (numClasses int8 per bucket) and one scale for all of them.
type model struct {
	scale float64
	bias  [numClasses]float64
	w     []int8
}

var (
	loadedModel     *model
	loadedModelErr  error
	loadedModelOnce sync.Once
)

// builtinModel returns the embedded model, decoded once.
func builtinModel() (*model, error) {
	loadedModelOnce.Do(func() { loadedModel, loadedModelErr = decodeModel(embeddedModel) })
	return loadedModel, loadedModelErr
}

// encodeModel writes the compact form: magic, scale (float64 bits), biases (int16 in units of scale), then
// for every bucket with a non-zero weight the gap from the previous bucket (uvarint) and its weights.
func encodeModel(m *model) []byte {
	out := []byte(modelMagic)
	out = binary.LittleEndian.AppendUint64(out, math.Float64bits(m.scale))
	for _, b := range m.bias {
		out = binary.LittleEndian.AppendUint16(out, uint16(int16(math.Round(b/m.scale))))
	}
	prev := -1
	for bucket := 0; bucket < hashBuckets; bucket++ {
		ws := m.w[bucket*numClasses : (bucket+1)*numClasses]
		nonzero := false
		for _, v := range ws {
			nonzero = nonzero || v != 0
		}
		if !nonzero {
			continue
		}
		out = binary.AppendUvarint(out, uint64(bucket-prev))
		for _, v := range ws {
			out = append(out, byte(v))
		}
		prev = bucket
	}
	return out
}

func decodeModel(data []byte) (*model, error) {
	head := len(modelMagic) + 8 + 2*numClasses
	if len(data) < head || string(data[:len(modelMagic)]) != modelMagic {
		return nil, errors.New("insights: embedded model: bad header")
	}
	m := &model{w: make([]int8, hashBuckets*numClasses)}
	p := len(modelMagic)
	m.scale = math.Float64frombits(binary.LittleEndian.Uint64(data[p:]))
	p += 8
	for c := range m.bias {
		m.bias[c] = float64(int16(binary.LittleEndian.Uint16(data[p:]))) * m.scale
		p += 2
	}
	bucket := -1
	for p < len(data) {
		gap, n := binary.Uvarint(data[p:])
		if n <= 0 || gap == 0 || uint64(bucket)+gap >= hashBuckets || p+n+numClasses > len(data) {
			return nil, fmt.Errorf("insights: embedded model: corrupt entry at byte %d", p)
		}
		p += n
		bucket += int(gap)
		for c := 0; c < numClasses; c++ {
			m.w[bucket*numClasses+c] = int8(data[p+c])
		}
		p += numClasses
	}
	return m, nil
}

// predict returns the class probabilities of a sentence's features.
func (m *model) predict(feats []uint32) [numClasses]float64 {
	var acc [numClasses]int32
	for _, f := range feats {
		ws := m.w[int(f)*numClasses : int(f)*numClasses+numClasses]
		for c := range acc {
			acc[c] += int32(ws[c])
		}
	}
	var z [numClasses]float64
	for c := range z {
		z[c] = float64(acc[c])*m.scale + m.bias[c]
	}
	return softmax(z, math.Exp)
}

// softmax turns scores into probabilities with the given exp (training brings its own, see portableExp).
func softmax(z [numClasses]float64, exp func(float64) float64) [numClasses]float64 {
	max := z[0]
	for _, v := range z[1:] {
		max = math.Max(max, v)
	}
	var sum float64
	for c := range z {
		z[c] = exp(z[c] - max)
		sum += z[c]
	}
	for c := range z {
		z[c] /= sum
	}
	return z
}

// featureSet hashes the features of one tokenized sentence into buckets.
type featureSet struct {
	out []uint32
}

const (
	fnvOffset = 2166136261
	fnvPrime  = 16777619
)

func hashStr(h uint32, s string) uint32 {
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= fnvPrime
	}
	return h
}

func (fs *featureSet) add(parts ...string) {
	h := uint32(fnvOffset)
	for i, p := range parts {
		if i > 0 {
			h = hashStr(h, "\x00")
		}
		h = hashStr(h, p)
	}
	fs.out = append(fs.out, h&(hashBuckets-1))
}

// negationScope is how many words after "not", "no", "never" … read as negated.
const negationScope = 3

// sentenceFeatures lists the features the model reads: v is what the cue lexicon says about the sentence.
// The same function serves training and extraction, so the two cannot disagree.
func sentenceFeatures(toks []string, questionMark bool, v verdict, dst []uint32) []uint32 {
	fs := featureSet{out: dst[:0]}
	fs.add("bias")
	prev := "<s>"
	negLeft := 0
	content := 0
	first := firstContent(toks)
	for i, t := range toks {
		if t == clauseBreak {
			negLeft = 0
			prev = ","
			continue
		}
		content++
		fs.add("w", t)
		fs.add("b", prev, t)
		if len(t) > 5 {
			fs.add("p", t[:5])
		}
		if negLeft > 0 {
			fs.add("n", t)
			negLeft--
		}
		if negators[t] || t == "lacks" || t == "lack" {
			negLeft = negationScope
		}
		if i == first {
			fs.add("f", t)
		}
		prev = t
	}
	fs.add("b", prev, "</s>")
	if questionMark {
		fs.add("?")
		if first < len(toks) {
			fs.add("?f", toks[first])
		}
	}
	switch {
	case content <= 2:
		fs.add("len", "short")
	case content <= 6:
		fs.add("len", "mid")
	default:
		fs.add("len", "long")
	}
	fs.add("rule", v.kind)
	for _, k := range []struct {
		name string
		v    float64
	}{{"req", v.sc.req}, {"prob", v.sc.prob}, {"praise", v.sc.praise}, {"ques", v.sc.ques}} {
		switch {
		case k.v >= 3:
			fs.add("cue", k.name, "strong")
		case k.v >= 1:
			fs.add("cue", k.name, "weak")
		}
	}
	switch {
	case v.score >= 0.3:
		fs.add("val", "pos")
	case v.score <= -0.3:
		fs.add("val", "neg")
	}
	return fs.out
}
