// Command oracle is the tests' stand-in for a wrapped program. The mode
// comes from WRAPPED_TEST_HELPER, which the fixtures pin: "argv" prints
// its arguments as a JSON array, "paths" the real path of each (through
// its symlinks, /proc/self/fd/N included; a missing last component kept
// as written), "read" each argument followed by the file it names, read
// (or "error: …"), "cat" copies stdin, "print" writes its last argument as is,
// "flood" writes 17 MiB of x, "fail" exits 3.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func main() {
	switch mode := os.Getenv("WRAPPED_TEST_HELPER"); mode {
	case "argv":
		data, _ := json.Marshal(os.Args[1:])
		fmt.Printf("%s\n", data)
	case "paths":
		real := make([]string, 0, len(os.Args)-1)
		for _, a := range os.Args[1:] {
			p, err := filepath.EvalSymlinks(a)
			if err != nil {
				dir, derr := filepath.EvalSymlinks(filepath.Dir(a))
				if derr != nil {
					p = "error: " + err.Error()
				} else {
					p = filepath.Join(dir, filepath.Base(a))
				}
			}
			real = append(real, p)
		}
		data, _ := json.Marshal(real)
		fmt.Printf("%s\n", data)
	case "read":
		out := make([]string, 0, 2*(len(os.Args)-1))
		for _, a := range os.Args[1:] {
			data, err := os.ReadFile(a)
			if err != nil {
				data = []byte("error: " + err.Error())
			}
			out = append(out, a, string(data))
		}
		data, _ := json.Marshal(out)
		fmt.Printf("%s\n", data)
	case "cat":
		io.Copy(os.Stdout, os.Stdin)
	case "print":
		if len(os.Args) > 1 {
			fmt.Print(os.Args[len(os.Args)-1])
		}
	case "flood":
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for range 17 {
			os.Stdout.Write(chunk)
		}
	case "fail":
		os.Exit(3)
	default:
		fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
		os.Exit(1)
	}
}
