// Command train fits the builtin insight extractor's model to the labelled corpus and writes the weights
// that the insights package embeds. Run it from the repository root after changing the corpus, the
// features or the lexicon:
//
//	go run ./insights/train            # rewrites insights/model.bin
//	go run ./insights/train -dev       # per-class figures on the dev split and the hand-written texts, writes nothing
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/feedbridge/feedbridge/insights"
)

func main() {
	corpus := flag.String("corpus", "insights/train/corpus.jsonl", "labelled training corpus (JSON lines)")
	out := flag.String("out", "insights/model.bin", "where to write the model")
	dev := flag.Bool("dev", false, "train without the dev split and report on it instead of writing the model")
	flag.Parse()
	if err := run(*corpus, *out, *dev); err != nil {
		fmt.Fprintln(os.Stderr, "train:", err)
		os.Exit(1)
	}
}

func run(corpusPath, out string, dev bool) error {
	data, err := os.ReadFile(corpusPath)
	if err != nil {
		return err
	}
	corpus, err := insights.ReadLabelled(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%s: %w", corpusPath, err)
	}
	if dev {
		fmt.Print(insights.DevReport(corpus))
		return nil
	}
	model := insights.TrainModel(corpus)
	if err := os.WriteFile(out, model, 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: %d examples, %d bytes\n", out, len(corpus), len(model))
	return nil
}
