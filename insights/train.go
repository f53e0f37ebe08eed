package insights

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"sort"
	"strings"
)

// LabelledText is one example of the training corpus or of an evaluation set: a sentence or a short
// feedback, the kind it carries ("none" for a sentence without an insight, training corpus only) and its
// sentiment. Origin "hand" marks a corpus text written on its own rather than from a phrasing pattern.
type LabelledText struct {
	Text      string `json:"text"`
	Kind      string `json:"kind"`
	Sentiment string `json:"sentiment"`
	Origin    string `json:"origin,omitempty"`
}

// ReadLabelled reads JSON lines of LabelledText, naming the line of the first bad one.
func ReadLabelled(r io.Reader) ([]LabelledText, error) {
	var out []LabelledText
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var lt LabelledText
		if err := json.Unmarshal(sc.Bytes(), &lt); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if classIndex(lt.Kind) < 0 {
			return nil, fmt.Errorf("line %d: unknown kind %q", line, lt.Kind)
		}
		if lt.Text == "" {
			return nil, fmt.Errorf("line %d: empty text", line)
		}
		out = append(out, lt)
	}
	return out, sc.Err()
}

func classIndex(kind string) int {
	for i, c := range modelClasses {
		if c == kind {
			return i
		}
	}
	return -1
}

// Training settings. They were chosen on the corpus's dev split (see DevReport), not on the evaluation sets.
const (
	trainEpochs   = 12
	trainRate     = 0.2
	trainL2       = 1e-4
	trainMinCount = 2 // a feature seen in fewer training examples gets no weight
	devShare      = 5 // one example in devShare goes to the dev split
)

// TrainModel fits the builtin extractor's model to a labelled corpus and returns it in the compact form
// that is embedded as insights/model.bin. The same corpus always gives the same bytes.
func TrainModel(corpus []LabelledText) []byte {
	return encodeModel(train(corpus))
}

type example struct {
	feats []uint32
	class int
}

func featurize(lx *lexicon, corpus []LabelledText) []example {
	out := make([]example, 0, len(corpus))
	for _, lt := range corpus {
		toks := tokenize(lt.Text, nil)
		q := strings.ContainsRune(lt.Text, '?')
		v := lx.classify(toks, q)
		feats := sentenceFeatures(toks, q, v, nil)
		out = append(out, example{feats: feats, class: classIndex(lt.Kind)})
	}
	return out
}

// train runs stochastic gradient descent on the softmax loss in a fixed order from a fixed seed. Every
// product is rounded explicitly (float64(…)) so no platform fuses it into a multiply-add, and exp is
// computed here rather than by an architecture-specific routine: the weights are the same everywhere.
func train(corpus []LabelledText) *model {
	exs := featurize(newLexicon(), corpus)
	seen := make([]int32, hashBuckets)
	for _, ex := range exs {
		for _, f := range uniqueFeatures(ex.feats) {
			seen[f]++
		}
	}
	w := make([]float64, hashBuckets*numClasses)
	var bias [numClasses]float64
	order := make([]int, len(exs))
	for i := range order {
		order[i] = i
	}
	rng := uint64(0x9E3779B97F4A7C15)
	for epoch := 0; epoch < trainEpochs; epoch++ {
		for i := len(order) - 1; i > 0; i-- {
			rng = rng*6364136223846793005 + 1442695040888963407
			j := int((rng >> 33) % uint64(i+1))
			order[i], order[j] = order[j], order[i]
		}
		lr := trainRate / (1 + float64(0.5*float64(epoch)))
		decay := 1 - float64(lr*trainL2)
		for _, k := range order {
			ex := exs[k]
			var z [numClasses]float64
			for c := range z {
				z[c] = bias[c]
				for _, f := range ex.feats {
					z[c] += w[int(f)*numClasses+c]
				}
			}
			p := softmax(z, portableExp)
			for c := range p {
				g := p[c]
				if c == ex.class {
					g -= 1
				}
				step := float64(lr * g)
				bias[c] -= step
				for _, f := range ex.feats {
					i := int(f)*numClasses + c
					w[i] = float64(w[i]*decay) - step
				}
			}
		}
	}
	maxAbs := 0.0
	for b := 0; b < hashBuckets; b++ {
		if seen[b] < trainMinCount {
			continue
		}
		for c := 0; c < numClasses; c++ {
			maxAbs = math.Max(maxAbs, math.Abs(w[b*numClasses+c]))
		}
	}
	scale := 1.0
	if maxAbs > 0 {
		scale = maxAbs / 127
	}
	dense := make([]int8, hashBuckets*numClasses)
	for b := 0; b < hashBuckets; b++ {
		if seen[b] < trainMinCount {
			continue
		}
		for c := 0; c < numClasses; c++ {
			dense[b*numClasses+c] = int8(math.Round(w[b*numClasses+c] / scale))
		}
	}
	var qbias [numClasses]float64
	for c := range bias {
		qbias[c] = math.Round(bias[c]/scale) * scale
	}
	return newModel(scale, qbias, dense)
}

func uniqueFeatures(fs []uint32) []uint32 {
	u := append([]uint32(nil), fs...)
	sort.Slice(u, func(i, j int) bool { return u[i] < u[j] })
	out := u[:0]
	for i, f := range u {
		if i == 0 || f != u[i-1] {
			out = append(out, f)
		}
	}
	return out
}

// portableExp is e^x for x ≤ 0: e^n by repeated multiplication times a Taylor series for the fraction.
func portableExp(x float64) float64 {
	if x < -60 {
		return 0
	}
	n := math.Floor(x)
	f := x - n // 0 ≤ f < 1
	r, term := 1.0, 1.0
	for k := 1; k <= 18; k++ {
		term = float64(term*f) / float64(k)
		r += term
	}
	for ; n < 0; n++ {
		r = float64(r / math.E)
	}
	return r
}

// devSplit tells whether an example belongs to the corpus's dev split, by a hash of its text.
func devSplit(text string) bool {
	h := fnv.New32a()
	h.Write([]byte(strings.ToLower(text)))
	return h.Sum32()%devShare == 0
}

// DevReport scores the model two ways without the texts it is scored on: trained without the dev split
// (one text in five) and scored on it, per class including none; and trained without the hand-written
// texts and scored on them through the whole extractor (first insight's kind), the harder test because
// no phrasing pattern of theirs was seen.
func DevReport(corpus []LabelledText) string {
	conf, trained := devConfusion(corpus)
	hand, handTrained := handConfusion(corpus)
	return fmt.Sprintf("dev split: trained on %d, scored %d\n%s\nhand-written texts: trained on %d, scored %d\n%s",
		trained, conf.total, conf.table(modelClasses[:]), handTrained, hand.total, hand.table(modelClasses[1:]))
}

// handConfusion trains without the hand-written texts and runs the extractor with that model on those of
// them that carry a kind.
func handConfusion(corpus []LabelledText) (confusion, int) {
	var trainSet []LabelledText
	var held []LabelledText
	for _, lt := range corpus {
		switch {
		case lt.Origin != "hand":
			trainSet = append(trainSet, lt)
		case lt.Kind != classNone:
			held = append(held, lt)
		}
	}
	b := &Builtin{lx: newLexicon(), m: train(trainSet), max: DefaultMaxInsights}
	var conf confusion
	for _, lt := range held {
		got, _ := b.Extract(context.Background(), Input{Text: lt.Text})
		kind := "(none)"
		if len(got) > 0 {
			kind = got[0].Kind
		}
		conf.add(lt.Kind, kind)
	}
	return conf, len(trainSet)
}

// devConfusion trains on the corpus without its dev split and scores the split; it also returns how many
// examples it trained on.
func devConfusion(corpus []LabelledText) (confusion, int) {
	var trainSet, dev []LabelledText
	for _, lt := range corpus {
		if devSplit(lt.Text) {
			dev = append(dev, lt)
		} else {
			trainSet = append(trainSet, lt)
		}
	}
	m := train(trainSet)
	var conf confusion
	for _, ex := range featurize(newLexicon(), dev) {
		p := m.predict(ex.feats)
		conf.add(modelClasses[ex.class], modelClasses[argmax(p[:])])
	}
	return conf, len(trainSet)
}

// confusion counts (wanted, got) pairs of kinds.
type confusion struct {
	n     map[[2]string]int
	total int
}

func (c *confusion) add(want, got string) {
	if c.n == nil {
		c.n = map[[2]string]int{}
	}
	c.n[[2]string{want, got}]++
	c.total++
}

// prf returns precision, recall, F1 and support (texts labelled class) of one class.
func (c *confusion) prf(class string) (p, r, f float64, support int) {
	var tp, fp, fn int
	for k, n := range c.n {
		switch {
		case k[0] == class && k[1] == class:
			tp += n
		case k[1] == class:
			fp += n
		case k[0] == class:
			fn += n
		}
	}
	support = tp + fn
	if tp+fp > 0 {
		p = float64(tp) / float64(tp+fp)
	}
	if support > 0 {
		r = float64(tp) / float64(support)
	}
	if p+r > 0 {
		f = 2 * p * r / (p + r)
	}
	return p, r, f, support
}

func (c *confusion) accuracy() float64 {
	ok := 0
	for k, n := range c.n {
		if k[0] == k[1] {
			ok += n
		}
	}
	if c.total == 0 {
		return 0
	}
	return float64(ok) / float64(c.total)
}

func (c *confusion) table(classes []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-9s %9s %6s %6s %6s\n", "class", "precision", "recall", "F1", "texts")
	for _, cl := range classes {
		p, r, f, n := c.prf(cl)
		fmt.Fprintf(&b, "%-9s %9.3f %6.3f %6.3f %6d\n", cl, p, r, f, n)
	}
	fmt.Fprintf(&b, "accuracy %.3f of %d\n", c.accuracy(), c.total)
	return b.String()
}
