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

// model holds the weights of the hash buckets that have any (numClasses int8 each, in units of scale), in
// bucket order, and an open-addressing index over them: a few tens of kilobytes that stay in cache, where
// a dense table of every bucket would not.
type model struct {
	scale   float64
	bias    [numClasses]float64
	buckets []uint32
	weights []int8
	slots   []slot
	shift   uint32
}

type slot struct {
	bucket uint32
	entry  int32 // index into buckets + 1; 0 is an empty slot
}

// newModel keeps the non-zero buckets of dense (numClasses weights per bucket) and indexes them.
func newModel(scale float64, bias [numClasses]float64, dense []int8) *model {
	m := &model{scale: scale, bias: bias}
	for b := 0; b < hashBuckets; b++ {
		ws := dense[b*numClasses : (b+1)*numClasses]
		for _, v := range ws {
			if v != 0 {
				m.buckets = append(m.buckets, uint32(b))
				m.weights = append(m.weights, ws...)
				break
			}
		}
	}
	m.index()
	return m
}

func (m *model) index() {
	bits := uint32(4)
	for 1<<bits < 2*len(m.buckets) {
		bits++
	}
	m.slots = make([]slot, 1<<bits)
	m.shift = 32 - bits
	for i, b := range m.buckets {
		h := m.home(b)
		for m.slots[h].entry != 0 {
			h = (h + 1) & uint32(len(m.slots)-1)
		}
		m.slots[h] = slot{bucket: b, entry: int32(i + 1)}
	}
}

func (m *model) home(b uint32) uint32 { return (b * 0x9E3779B1) >> m.shift }

// lookup returns a bucket's weights, or nil when it has none.
func (m *model) lookup(b uint32) []int8 {
	mask := uint32(len(m.slots) - 1)
	for h := m.home(b); ; h = (h + 1) & mask {
		sl := m.slots[h]
		if sl.entry == 0 {
			return nil
		}
		if sl.bucket == b {
			i := int(sl.entry-1) * numClasses
			return m.weights[i : i+numClasses]
		}
	}
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
	for i, b := range m.buckets {
		out = binary.AppendUvarint(out, uint64(int(b)-prev))
		for _, v := range m.weights[i*numClasses : (i+1)*numClasses] {
			out = append(out, byte(v))
		}
		prev = int(b)
	}
	return out
}

func decodeModel(data []byte) (*model, error) {
	head := len(modelMagic) + 8 + 2*numClasses
	if len(data) < head || string(data[:len(modelMagic)]) != modelMagic {
		return nil, errors.New("insights: embedded model: bad header")
	}
	m := &model{}
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
		m.buckets = append(m.buckets, uint32(bucket))
		for c := 0; c < numClasses; c++ {
			m.weights = append(m.weights, int8(data[p+c]))
		}
		p += numClasses
	}
	m.index()
	return m, nil
}

// predict returns the class probabilities of a sentence's features.
func (m *model) predict(feats []uint32) [numClasses]float64 {
	var acc [numClasses]int32
	for _, f := range feats {
		ws := m.lookup(f)
		if ws == nil {
			continue
		}
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
