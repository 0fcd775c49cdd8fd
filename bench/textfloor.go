package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/itchyny/gojq"
)

// The floors of the text benchmarks: the work of each script done by one
// Go function, with no shell, no process and no pipe, printing what the
// script prints. What a builtin costs above its floor is its own.

// grepFloor prints what `grep -rn PATTERN .` prints in dir for a pattern
// with no special character: each line of each file under dir that holds
// pattern, as ./NAME:LINE:TEXT, the files in the order of a sorted walk.
func grepFloor(dir, pattern string, w io.Writer) error {
	out := bufio.NewWriter(w)
	p := []byte(pattern)
	err := walkFiles(dir, func(name, rel string) error {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			if bytes.Contains(sc.Bytes(), p) {
				out.WriteString("./" + rel + ":" + strconv.Itoa(n) + ":")
				out.Write(sc.Bytes())
				out.WriteByte('\n')
			}
		}
		return sc.Err()
	})
	if err != nil {
		return err
	}
	return out.Flush()
}

// sedFloor prints what `sed -n '/RE/p' FILE` prints: the lines of file
// that re matches.
func sedFloor(file string, re *regexp.Regexp, w io.Writer) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	out := bufio.NewWriter(w)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if re.Match(sc.Bytes()) {
			out.Write(sc.Bytes())
			out.WriteByte('\n')
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return out.Flush()
}

// findWcFloor prints what `find . -name '*.txt' | xargs wc -l` prints
// in dir when the names fit one wc: each .txt file's line count and
// name, then the total, in columns as wide as the digits of the files'
// total size (GNU wc's width), the files in the order of a sorted walk.
func findWcFloor(dir string, w io.Writer) error {
	type counted struct {
		name  string
		lines int
	}
	var files []counted
	var size int64
	err := walkFiles(dir, func(name, rel string) error {
		if ok, _ := filepath.Match("*.txt", filepath.Base(rel)); !ok {
			return nil
		}
		b, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		size += int64(len(b))
		files = append(files, counted{"./" + rel, bytes.Count(b, []byte{'\n'})})
		return nil
	})
	if err != nil {
		return err
	}
	width := len(strconv.FormatInt(size, 10))
	out := bufio.NewWriter(w)
	line := func(n int, name string) {
		s := strconv.Itoa(n)
		for range width - len(s) {
			out.WriteByte(' ')
		}
		out.WriteString(s + " " + name + "\n")
	}
	total := 0
	for _, f := range files {
		line(f.lines, f.name)
		total += f.lines
	}
	line(total, "total")
	return out.Flush()
}

// jqFloor prints what `jq FILTER FILE` prints for a filter whose results
// are scalars: the gojq library run on the file's one JSON value, each
// result a line.
func jqFloor(file, filter string, w io.Writer) error {
	q, err := gojq.Parse(filter)
	if err != nil {
		return err
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	out := bufio.NewWriter(w)
	for iter := code.Run(v); ; {
		r, ok := iter.Next()
		if !ok {
			break
		}
		if err, ok := r.(error); ok {
			return err
		}
		enc, err := gojq.Marshal(r)
		if err != nil {
			return err
		}
		out.Write(enc)
		out.WriteByte('\n')
	}
	return out.Flush()
}

// walkFiles calls fn for each regular file under dir, in lexical order
// (as filepath.WalkDir walks), with its path and its name relative to
// dir.
func walkFiles(dir string, fn func(name, rel string) error) error {
	return filepath.WalkDir(dir, func(name string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, name)
		if err != nil {
			return err
		}
		return fn(name, rel)
	})
}
