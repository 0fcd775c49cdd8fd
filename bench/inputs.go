package bench

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// The inputs of the text benchmarks are written from a fixed seed: the
// same bytes on every machine and in every run.

// needle is the word the recursive grep looks for.
const needle = "needle"

// needleEvery is how often a line of the tree holds the needle: one line
// in needleEvery, a few lines in every two files.
const needleEvery = 151

// words are the words of the generated text.
var words = []string{
	"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
	"india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa",
	"quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey",
	"xray", "yankee", "zulu", "shell", "agent", "kernel", "session",
}

// writeTree writes files text files under dir, a hundred a directory
// (d00/f0000.txt, …), each 40 to 80 lines of about 50 bytes: a few KB.
// Every fourth file is a .log instead of a .txt, so that find's -name
// leaves some out. One line in needleEvery holds the needle.
func writeTree(dir string, files int) error {
	r := rand.New(rand.NewPCG(29, 1))
	line := 0
	for i := range files {
		ext := ".txt"
		if i%4 == 3 {
			ext = ".log"
		}
		name := filepath.Join(dir, fmt.Sprintf("d%02d", i/100), fmt.Sprintf("f%04d%s", i, ext))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		err := writeFile(name, func(w *bytes.Buffer) {
			for range 40 + r.IntN(41) {
				line++
				at := -1
				if line%needleEvery == 0 {
					at = r.IntN(7)
				}
				for j := range 7 {
					if j > 0 {
						w.WriteByte(' ')
					}
					if j == at {
						w.WriteString(needle)
					} else {
						w.WriteString(words[r.IntN(len(words))])
					}
				}
				fmt.Fprintf(w, " %d\n", r.IntN(100000))
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// linesPattern is the sed benchmark's regular expression, the same in
// POSIX basic syntax and in Go's: lines that end in 990 to 994, one in
// two hundred.
const linesPattern = ` 99[0-4]$`

// writeLines writes about size bytes of numbered lines of words, each
// ending in a number below 1,000, to name.
func writeLines(name string, size int) error {
	r := rand.New(rand.NewPCG(29, 2))
	return writeFile(name, func(w *bytes.Buffer) {
		for i := 0; w.Len() < size; i++ {
			fmt.Fprintf(w, "%07d %s %s %s %d\n", i, words[r.IntN(len(words))], words[r.IntN(len(words))], words[r.IntN(len(words))], r.IntN(1000))
		}
	})
}

// itemsFilter is the jq benchmark's filter.
const itemsFilter = `.items[] | select(.n % 7 == 0) | .name`

// writeItems writes about size bytes of one JSON object to name:
// {"items":[{"name":…,"n":…,"tags":[…],"score":…},…]}, an item a line.
func writeItems(name string, size int) error {
	r := rand.New(rand.NewPCG(29, 3))
	return writeFile(name, func(w *bytes.Buffer) {
		w.WriteString(`{"items":[`)
		for i := 0; w.Len() < size; i++ {
			if i > 0 {
				w.WriteByte(',')
			}
			fmt.Fprintf(w, "\n{\"name\":\"item-%06d\",\"n\":%d,\"tags\":[%q,%q],\"score\":%d.%02d}",
				i, r.IntN(100000), words[r.IntN(len(words))], words[r.IntN(len(words))], r.IntN(100), r.IntN(100))
		}
		w.WriteString("\n]}\n")
	})
}

// writeFile writes what fill puts in a buffer to name.
func writeFile(name string, fill func(*bytes.Buffer)) error {
	var b bytes.Buffer
	fill(&b)
	return os.WriteFile(name, b.Bytes(), 0o644)
}
