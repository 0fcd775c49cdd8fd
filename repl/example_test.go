package repl_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/repl"
)

// A frontend runs the prompt in a session of its own kernel, with the
// history in the user's file, as `shelter repl` does. Run needs a
// terminal on the process's stdin; without one it returns
// ErrNoTerminal at once.
func ExampleRun() {
	cfg, _ := kernel.Preset(kernel.ProfileHost)
	k, err := kernel.New(cfg)
	if err != nil {
		panic(err)
	}
	s, err := k.NewSession(kernel.SessionOptions{})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	// A history that cannot be read is still appended to.
	hist, err := repl.OpenHistory(repl.DefaultHistoryPath())
	if err != nil {
		fmt.Fprintln(os.Stderr, "history:", err)
	}
	status, err := repl.Run(s, repl.Options{History: hist})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	fmt.Println("exit status", status)
}

// The prompt names the working directory, with ~ for home, and the last
// status when it is not 0; PS1, when set, is the prompt as it is.
func ExamplePrompt() {
	fmt.Printf("%q\n", repl.Prompt("/home/ada/src", "/home/ada", "", 0))
	fmt.Printf("%q\n", repl.Prompt("/home/ada/src", "/home/ada", "", 1))
	fmt.Printf("%q\n", repl.Prompt("/tmp", "/home/ada", `\w $ `, 0))
	// Output:
	// "shelter:~/src$ "
	// "shelter:~/src [1]$ "
	// "\\w $ "
}

// Complete offers what Tab would: here file names for an argument, quoted
// as the word typed is, and a session's variable after $.
func ExampleComplete() {
	dir, err := os.MkdirTemp("", "shelter-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "my notes.txt"), nil, 0o644)
	os.Mkdir(filepath.Join(dir, "my dir"), 0o755)

	k, err := kernel.New(kernel.Config{})
	if err != nil {
		panic(err)
	}
	s, err := k.NewSession(kernel.SessionOptions{Dir: dir, Env: map[string]string{"EXAMPLE_COLOUR": "blue"}})
	if err != nil {
		panic(err)
	}
	defer s.Close()

	for _, line := range []string{"cat my", `cat "my n`, "echo $EXAMPLE_C"} {
		word, cands := repl.Complete(s, line, len([]rune(line)))
		fmt.Printf("%s →", word)
		for _, c := range cands {
			fmt.Printf(" %s", c.Word)
		}
		fmt.Println()
	}
	// Output:
	// my → my\ dir/ my\ notes.txt
	// "my n → "my notes.txt"
	// $EXAMPLE_C → $EXAMPLE_COLOUR
}

// A history with no file keeps this run's entries in memory; an entry of
// several lines is one entry.
func ExampleOpenHistory() {
	hist, err := repl.OpenHistory("")
	if err != nil {
		panic(err)
	}
	hist.Write("ls -l")
	hist.Write("for f in *; do\n  wc -l \"$f\"\ndone")
	for i := range hist.Len() {
		line, _ := hist.GetLine(i)
		fmt.Printf("%d %q\n", i, line)
	}
	// Output:
	// 0 "ls -l"
	// 1 "for f in *; do\n  wc -l \"$f\"\ndone"
}
